import AccessToken
@testable import ChannelEngine
import Foundation
import HubProtocol
import TestSupport
import Testing

/// The shapes real 4.x apps use: the 4.x names of the account callbacks, connections built property by property, the
/// other constructors and joins, leave options, media options of plain types, and latency levels.
@MainActor
@Suite struct SDKShapeTests {
    /// A 4.x app: it registers its account and joins from `didLocalUserRegisteredWithUserId`, once. The 3.x name,
    /// which such an app may still carry, is not called, as the 4.x SDK does not call it.
    final class AccountApp: AgoraRtcEngineDelegate {
        let token: String
        var lines: [String] = []
        init(token: String) { self.token = token }

        func rtcEngine(_ engine: AgoraRtcEngineKit, didLocalUserRegisteredWithUserId uid: UInt, userAccount: String) {
            lines.append("registered \(userAccount)")
            guard lines.count == 1 else { return }
            lines.append("join \(engine.joinChannel(byToken: token, channelId: "test", userAccount: userAccount))")
        }
        func rtcEngine(_ engine: AgoraRtcEngineKit, didRegisteredLocalUser userAccount: String, withUid uid: UInt) {
            lines.append("3.x name called")
        }
        func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinChannel channel: String, withUid uid: UInt, elapsed: Int) {
            lines.append("didJoinChannel \(channel)")
        }
    }

    private static func accountToken(_ h: Harness, _ account: String = "alice") -> String {
        try! AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, channel: "test",
                                   user: .account(account), role: .publisher, tokenExpire: 600, privilegeExpire: 600,
                                   issuedAt: UInt32(h.clock.unixTime), salt: 1)
    }

    @Test func anAppThatJoinsFromDidLocalUserRegisteredJoins() async {
        let h = Harness()
        let app = AccountApp(token: Self.accountToken(h))
        h.engine.delegate = app
        #expect(h.engine.registerLocalUserAccount("alice", appId: TestCredentials.appID) == 0)
        await h.advance(1)
        #expect(h.engine.connectionState == .connected)
        // The join registers the account again, as Agora's reference says; the app joins only once.
        #expect(app.lines == ["registered alice", "join 0", "registered alice", "didJoinChannel test"])
    }

    @Test func aHubUserWithAnAccountIsNamedByDidUserInfoUpdated() async throws {
        let hub = HubHarness()
        final class InfoApp: AgoraRtcEngineDelegate {
            var infos: [(UInt, String?)] = []
            func rtcEngine(_ engine: AgoraRtcEngineKit, didUserInfoUpdatedWithUserId uid: UInt, userInfo: AgoraUserInfo) {
                infos.append((userInfo.uid, userInfo.userAccount))
            }
        }
        let app = InfoApp()
        hub.engine.delegate = app
        hub.link.inject(.connected)
        #expect(hub.engine.joinChannel(byToken: hub.h.token(), channelId: "test", uid: 42) == 0)
        await hub.h.settle()
        hub.link.inject(.joined(channel: "test", uid: 42, role: .broadcaster, expiresAt: hub.expiresAt,
                                users: [HubPeer(uid: 7, account: "bob"), HubPeer(uid: 8, account: nil)]))
        hub.link.inject(.userJoined(HubPeer(uid: 9, account: "carol")))
        await hub.h.settle()
        let names = hub.recorder.events.filter { ["didJoinedOfUid", "didUserInfoUpdated"].contains($0.name) }
        #expect(names == [
            .didJoinedOfUid(7, elapsed: 0), .didUserInfoUpdated(uid: 7, account: "bob"), .didJoinedOfUid(8, elapsed: 0),
            .didJoinedOfUid(9, elapsed: 0), .didUserInfoUpdated(uid: 9, account: "carol"),
        ])
        #expect(app.infos.map(\.0) == [7, 9])
        #expect(app.infos.map(\.1) == ["bob", "carol"])
    }

    @Test func aConnectionMadeEmptyAndThenSetJoinsLikeOneMadeWhole() async {
        let h = Harness()
        let connection = AgoraRtcConnection()
        #expect(connection.channelId == "" && connection.localUid == 0)
        connection.channelId = "second"
        connection.localUid = 7
        #expect(h.engine.joinChannelEx(byToken: h.token(channel: "second", uid: 7), connection: connection, delegate: h.recorder) == 0)
        await h.advance(1)
        #expect(h.engine.getConnectionStateEx(AgoraRtcConnection(channelId: "second", localUid: 7)) == .connected)
    }

    @Test func theSharedEngineWithAnAppIdIsAnEngineForThatAppId() {
        let engine = AgoraRtcEngineKit.sharedEngine(withAppId: TestCredentials.appID, delegate: nil)
        #expect(engine.appId == TestCredentials.appID)
        #expect(AgoraRtcEngineKit.sharedEngine(withAppId: "another", delegate: nil) === engine)
        AgoraRtcEngineKit.destroy()
    }

    @Test func theOlderJoinWithInfoCallsItsBlockInsteadOfDidJoinChannel() async {
        let h = Harness()
        var joined: (String, UInt)?
        #expect(h.engine.joinChannel(byToken: h.token(), channelId: "test", info: "ignored", uid: 42) { channel, uid, _ in
            joined = (channel, uid)
        } == 0)
        await h.advance(1)
        #expect(joined?.0 == "test" && joined?.1 == 42)
        #expect(h.engine.connectionState == .connected)
    }

    @Test func leavingWithOptionsLeavesAndCallsTheBlock() async {
        let h = Harness()
        await h.join()
        let connection = AgoraRtcConnection(channelId: "second", localUid: 7)
        h.engine.joinChannelEx(byToken: h.token(channel: "second", uid: 7), connection: connection, delegate: h.recorder)
        await h.advance(3)
        var stats: [UInt] = []
        let options = AgoraLeaveChannelOptions()
        options.stopMicrophoneRecording = false
        #expect(h.engine.leaveChannelEx(connection, options: options) { stats.append($0.duration) } == 0)
        #expect(h.engine.leaveChannel(AgoraLeaveChannelOptions()) { stats.append($0.duration) } == 0)
        await h.settle()
        #expect(stats == [2, 3])
        #expect(h.engine.getConnectionStateEx(connection) == .disconnected)
        #expect(h.engine.connectionState == .disconnected)
    }

    @Test func mediaOptionsArePlainValuesAndOnlyTheOnesSetChangeAnything() async {
        let unset = AgoraRtcChannelMediaOptions()
        #expect(unset.clientRoleType == .broadcaster && unset.audienceLatencyLevel == .ultraLowLatency)
        #expect(!unset.publishCameraTrack && unset.token == nil)
        let h = Harness()
        let options = AgoraRtcChannelMediaOptions()
        options.clientRoleType = .audience
        options.audienceLatencyLevel = .lowLatency
        options.publishCameraTrack = false
        options.autoSubscribeVideo = true
        #expect(h.engine.joinChannel(byToken: h.token(), channelId: "test", uid: 42, mediaOptions: options) == 0)
        await h.advance(1)
        #expect(h.engine.clientRole == .audience)
        // A token alone renews and leaves the role as it is.
        let renewal = AgoraRtcChannelMediaOptions()
        renewal.token = h.token(expire: 900)
        #expect(h.engine.updateChannel(with: renewal) == 0)
        await h.settle()
        #expect(h.engine.clientRole == .audience)
        #expect(h.recorder.count("didClientRoleChanged") == 0)
        // A latency level alone is a change the SDK reports, the role the same.
        let latency = AgoraRtcChannelMediaOptions()
        latency.audienceLatencyLevel = .ultraLowLatency
        #expect(h.engine.updateChannel(with: latency) == 0)
        await h.settle()
        #expect(h.recorder.events.last == .didClientRoleChanged(old: .audience, new: .audience, latency: .ultraLowLatency))
    }

    @Test func aNewLatencyLevelAloneIsReportedInTheChannelWithItsOptions() async {
        let h = Harness()
        let low = AgoraClientRoleOptions()
        low.audienceLatencyLevel = .lowLatency
        // Before joining, only a change to audience is reported, and a level alone is not.
        #expect(h.engine.setClientRole(.audience, options: low) == 0)
        #expect(h.engine.setClientRole(.audience, options: AgoraClientRoleOptions()) == 0)
        await h.settle()
        #expect(h.recorder.events == [.didClientRoleChanged(old: .broadcaster, new: .audience, latency: .lowLatency)])
        await h.join()
        h.recorder.clear()
        #expect(h.engine.setClientRole(.audience, options: low) == 0)
        #expect(h.engine.setClientRole(.audience, options: low) == 0)
        #expect(h.engine.setClientRole(.audience, options: nil) == 0)
        await h.settle()
        #expect(h.recorder.events == [.didClientRoleChanged(old: .audience, new: .audience, latency: .lowLatency)])
        final class OptionsApp: AgoraRtcEngineDelegate {
            var levels: [AgoraAudienceLatencyLevelType?] = []
            func rtcEngine(_ engine: AgoraRtcEngineKit, didClientRoleChanged oldRole: AgoraClientRole, newRole: AgoraClientRole,
                           newRoleOptions: AgoraClientRoleOptions?) {
                levels.append(newRoleOptions?.audienceLatencyLevel)
            }
        }
        let app = OptionsApp()
        h.engine.delegate = app
        #expect(h.engine.setClientRole(.audience, options: AgoraClientRoleOptions()) == 0)
        #expect(h.engine.setClientRole(.broadcaster) == 0)
        await h.settle()
        #expect(app.levels == [.ultraLowLatency, nil])
    }

    @Test func throughAHubALatencyLevelAloneIsReportedWithoutAskingTheHub() async {
        let hub = HubHarness()
        await hub.join()
        let low = AgoraClientRoleOptions()
        low.audienceLatencyLevel = .lowLatency
        hub.link.clear()
        #expect(hub.engine.setClientRole(.broadcaster, options: low) == 0)
        await hub.h.settle()
        #expect(hub.recorder.events.last == .didClientRoleChanged(old: .broadcaster, new: .broadcaster, latency: .lowLatency))
        #expect(hub.link.requests.isEmpty)
    }
}
