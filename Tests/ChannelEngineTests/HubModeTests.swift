import AccessToken
@testable import ChannelEngine
import Foundation
import HubProtocol
import Synchronization
import Testing
import TestSupport

/// An engine whose main channel goes through a fake hub, on a manual clock.
@MainActor
struct HubHarness {
    let link = FakeHubLink()
    let h: Harness

    /// `wrap` makes the link the engine is given from the fake the test plays the hub with.
    init(remoteUsers: Int = 0, wrap: (FakeHubLink) -> any HubLink = { $0 }) {
        h = Harness(remoteUsers: remoteUsers, hub: wrap(link))
    }

    var engine: AgoraRtcEngineKit { h.engine }
    var recorder: Recorder { h.recorder }
    var expiresAt: Int64 { Int64(h.clock.unixTime) + 600 }

    func joined(uid: UInt32 = 42, users: [UInt32] = [], expiresAt: Int64? = nil) -> HubNotice {
        .joined(channel: "test", uid: uid, role: .broadcaster, expiresAt: expiresAt ?? self.expiresAt,
                users: users.map { HubPeer(uid: $0, account: nil) })
    }

    /// Connects the link, joins "test" as uid 42 and lets the hub answer with `users` present; returns the token.
    @discardableResult
    func join(users: [UInt32] = []) async -> String {
        let token = h.token()
        link.inject(.connected)
        #expect(engine.joinChannel(byToken: token, channelId: "test", uid: 42) == 0)
        await h.settle()
        link.inject(joined(users: users))
        await h.settle()
        return token
    }

    func frame(from uid: UInt32, red: UInt8 = 200) -> HubVideoFrame {
        let cells = [HubVideoFrame.Color](repeating: .init(red: red, green: 10, blue: 20),
                                          count: HubVideoFrame.sentColumns * HubVideoFrame.sentRows)
        return HubVideoFrame(uid: uid, columns: HubVideoFrame.sentColumns, rows: HubVideoFrame.sentRows, cells: cells)!
    }

    /// What the hub sends when it refuses a join for `rejection` (Docs/hub-protocol.md's table).
    static func notice(for rejection: TokenRejection) -> HubNotice {
        .connectionStateChanged(state: rejection.state, reason: rejection.reason, error: rejection.error)
    }

    static let tokenRanOut = HubNotice.connectionStateChanged(state: .failed,
                                                              reason: .reasonTokenExpired, error: .tokenExpired)
}

@MainActor
@Suite struct HubModeTests {
    @Test func theJoinWaitsForTheLinkThenTheHubsJoinedIsDidJoinChannelWithThePeopleThere() async {
        let hub = HubHarness()
        let token = hub.h.token()
        hub.engine.joinChannel(byToken: token, channelId: "test", uid: 42)
        await hub.h.advance(5)
        #expect(hub.link.requests.isEmpty)
        #expect(hub.engine.connectionState == .connecting)
        hub.link.inject(.connected)
        await hub.h.settle()
        #expect(hub.link.joins == [HubJoin(appId: TestCredentials.appID, channel: "test", user: .uid(42), token: token,
                                           media: HubMedia(audio: .on, video: .off))])
        hub.recorder.clear()
        hub.link.inject(hub.joined(users: [7]))
        await hub.h.settle()
        #expect(hub.recorder.events.filter { $0.name != "simulatorNotice" } == [
            .connectionStateChanged(.connected, reason: .reasonJoinSuccess),
            .didJoinChannel(channel: "test", uid: 42, elapsed: 5000),
            .didJoinedOfUid(7, elapsed: 5000),
            .remoteVideoStateChanged(uid: 7, state: .starting, reason: .internal, elapsed: 5000),
        ])
        #expect(hub.engine.tokenExpiresAt == hub.expiresAt)
        #expect(hub.engine.remoteUids == [7])
    }

    @Test func uidZeroAndAccountsTakeTheUidTheHubGives() async {
        let hub = HubHarness()
        hub.link.inject(.connected)
        hub.engine.joinChannel(byToken: "t", channelId: "test", uid: 0)
        await hub.h.settle()
        #expect(hub.link.joins.last?.user == .uid(0))
        hub.link.inject(hub.joined(uid: 1_000_000_001))
        await hub.h.settle()
        #expect(hub.recorder.events.contains(.didJoinChannel(channel: "test", uid: 1_000_000_001, elapsed: 0)))
        #expect(hub.engine.connection?.localUid == 1_000_000_001)

        // Joining again with 0, the engine asks for the uid the hub gave, as the SDK keeps its uid.
        hub.engine.leaveChannel()
        await hub.h.settle()
        hub.engine.joinChannel(byToken: "t", channelId: "test", uid: 0)
        await hub.h.settle()
        #expect(hub.link.joins.last?.user == .uid(1_000_000_001))

        let other = HubHarness()
        other.link.inject(.connected)
        other.engine.joinChannel(byToken: "t", channelId: "test", userAccount: "alice")
        await other.h.settle()
        #expect(other.link.joins.last?.user == .account("alice"))
        other.link.inject(other.joined(uid: 1_000_000_002))
        await other.h.settle()
        #expect(other.recorder.events.contains(.didLocalUserRegistered(account: "alice", uid: 1_000_000_002)))
        #expect(other.recorder.events.contains(.didJoinChannel(channel: "test", uid: 1_000_000_002, elapsed: 0)))
    }

    @Test func onlyTheHubSaysWhenTheTokenEndsAndRenewalsGoThroughIt() async {
        let hub = HubHarness()
        let token = await hub.join()
        await hub.h.advance(900)  // past the token's end on the engine's own clock: the hub decides, not the engine
        #expect(hub.recorder.count("tokenPrivilegeWillExpire") == 0)
        #expect(hub.recorder.count("requestToken") == 0)
        hub.link.inject(.tokenPrivilegeWillExpire(expiresAt: hub.expiresAt))
        await hub.h.settle()
        #expect(hub.recorder.events.last == .tokenPrivilegeWillExpire(token: token))

        let fresh = hub.h.token(expire: 1200)
        hub.engine.renewToken(fresh)
        await hub.h.settle()
        #expect(hub.link.requests.last == .renew(token: fresh))
        #expect(hub.recorder.count("renewTokenResult") == 0)
        hub.link.inject(.renewTokenResult(AgoraRenewTokenErrorCode.success, expiresAt: hub.expiresAt + 600))
        await hub.h.settle()
        #expect(hub.recorder.events.suffix(2) == [.renewTokenResult(token: fresh, code: .success),
                                                   .simulatorNotice(.tokenAccepted(expiresAt: hub.expiresAt + 600, short: false))],
                "the answer, then the notice of the token taken, as without a hub")
        #expect(hub.engine.currentToken == fresh)
        #expect(hub.engine.tokenExpiresAt == hub.expiresAt + 600)

        hub.engine.renewToken("007stale")
        hub.link.inject(.renewTokenResult(AgoraRenewTokenErrorCode.tokenExpired, expiresAt: nil))
        await hub.h.settle()
        #expect(hub.recorder.events.last == .renewTokenResult(token: "007stale", code: .tokenExpired))
        #expect(hub.engine.currentToken == fresh)
    }

    @Test func aTokenRenewedBeforeTheJoinReachedTheHubIsTheOneTheJoinPresents() async {
        let hub = HubHarness()
        hub.engine.joinChannel(byToken: hub.h.token(), channelId: "test", uid: 42)
        let fresh = hub.h.token(expire: 1200)
        hub.engine.renewToken(fresh)
        hub.link.inject(.connected)
        await hub.h.settle()
        #expect(hub.link.joins.map(\.token) == [fresh])
        hub.link.inject(hub.joined())
        await hub.h.settle()
        #expect(hub.recorder.events.contains(.renewTokenResult(token: fresh, code: .success)))
        #expect(hub.engine.currentToken == fresh)
    }

    @Test func theTokensEndIsRequestTokenAndARenewalJoinsAgain() async {
        let hub = HubHarness()
        await hub.join(users: [7])
        hub.recorder.clear()
        hub.link.inject(HubHarness.tokenRanOut)
        await hub.h.settle()
        #expect(Array(hub.recorder.events.prefix(2)) == [.requestToken, .connectionStateChanged(.failed, reason: .reasonTokenExpired)])
        #expect(hub.engine.remoteUids.isEmpty)
        #expect(hub.link.requests.last != .leave)  // the hub has us out already

        let fresh = hub.h.token(expire: 1200)
        hub.recorder.clear()
        hub.engine.renewToken(fresh)
        await hub.h.settle()
        #expect(hub.recorder.states == [.connectionStateChanged(.connecting, reason: .reasonRenewToken)])
        #expect(hub.link.joins.last?.token == fresh)
        hub.link.inject(hub.joined(users: [7]))
        await hub.h.settle()
        #expect(hub.recorder.states.last == .connectionStateChanged(.connected, reason: .reasonRejoinSuccess))
        #expect(hub.recorder.events.contains(.renewTokenResult(token: fresh, code: .success)))
        #expect(hub.recorder.count("didJoinChannel") == 0)
        #expect(hub.engine.remoteUids == [7])
    }

    @Test(arguments: JoinTests.refusals)
    func eachRefusalOfTheHubGivesWhatTheSimulatedEngineGives(refusal: JoinTests.Refusal) async throws {
        let simulated = Harness()
        simulated.engine.joinChannel(byToken: refusal.token(simulated), channelId: "test", uid: 42)
        await simulated.advance(1)

        let hub = HubHarness()
        let token = refusal.token(hub.h)
        // The hub checks with the engine's rules and the server's certificate.
        guard case .failure(let rejection) = TokenRejection.check(
            token, appId: TestCredentials.appID, appCertificate: TestCredentials.certificate, channel: "test",
            user: .uid(42), unixNow: hub.h.clock.unixTime) else { Issue.record("the hub would let \(refusal.name) in"); return }
        hub.link.inject(.connected)
        hub.engine.joinChannel(byToken: token, channelId: "test", uid: 42)
        hub.link.inject(HubHarness.notice(for: rejection))
        await hub.h.advance(1)
        #expect(hub.recorder.events.filter { $0.name != "simulatorNotice" } == simulated.recorder.events)
        #expect(hub.engine.connectionState == refusal.state)
    }

    @Test func theSameUidElsewherePushesUsOutWithSameUidLogin() async {
        let hub = HubHarness()
        await hub.join(users: [7])
        hub.link.inject(.connectionStateChanged(state: AgoraConnectionState.failed,
                                                reason: .sameUidLogin, error: nil))
        await hub.h.settle()
        #expect(hub.recorder.states.last == .connectionStateChanged(.failed, reason: .sameUidLogin))
        #expect(hub.recorder.count("didOccurError") == 0)
        #expect(hub.engine.remoteUids.isEmpty)
    }

    @Test func hubUsersComeAndGoWithTheirVideoStates() async throws {
        let hub = HubHarness()
        await hub.join()
        hub.link.inject(.userJoined(HubPeer(uid: 9, account: nil)))
        await hub.h.settle()
        #expect(hub.recorder.events.suffix(2) == [
            .didJoinedOfUid(9, elapsed: 0), .remoteVideoStateChanged(uid: 9, state: .starting, reason: .internal, elapsed: 0),
        ])
        #expect(hub.engine.videoSource(forUid: 9) == nil)
        #expect(hub.engine.receivedVideo(forUid: 9) == nil)

        await hub.h.advance(0.5)
        hub.link.inject(.video(hub.frame(from: 9)))
        await hub.h.settle()
        #expect(hub.recorder.events.suffix(2) == [
            .firstRemoteVideoFrame(uid: 9, size: VideoSize(width: 32, height: 18), elapsed: 500),
            .remoteVideoStateChanged(uid: 9, state: .decoding, reason: .internal, elapsed: 500),
        ])
        #expect(hub.engine.receivedVideo(forUid: 9) == hub.frame(from: 9))
        hub.link.inject(.video(hub.frame(from: 9, red: 90)))
        await hub.h.advance(0.9)
        #expect(hub.engine.receivedVideo(forUid: 9) == hub.frame(from: 9, red: 90))
        #expect(hub.recorder.count("firstRemoteVideoFrame") == 1)
        #expect(hub.recorder.events.last == .remoteVideoStateChanged(uid: 9, state: .decoding, reason: .internal, elapsed: 500))
        await hub.h.advance(0.2)  // a second without frames
        #expect(hub.recorder.events.last == .remoteVideoStateChanged(uid: 9, state: .frozen, reason: .congestion, elapsed: 1500))
        hub.link.inject(.video(hub.frame(from: 9)))
        await hub.h.settle()
        #expect(hub.recorder.events.last == .remoteVideoStateChanged(uid: 9, state: .decoding, reason: .recovery, elapsed: 1600))

        hub.link.inject(.userOffline(uid: 9, reason: AgoraUserOfflineReason.dropped))
        await hub.h.settle()
        #expect(hub.recorder.count("didOfflineOfUid") == 0, "a dropped peer may be back within 20 s")
        await hub.h.advance(20)
        #expect(hub.recorder.events.suffix(2) == [
            .didOfflineOfUid(9, reason: .dropped),
            .remoteVideoStateChanged(uid: 9, state: .stopped, reason: .remoteOffline, elapsed: 21600),
        ])
        #expect(hub.engine.receivedVideo(forUid: 9) == nil)
        hub.link.inject(.video(hub.frame(from: 9)))
        await hub.h.advance(2)
        #expect(hub.engine.receivedVideo(forUid: 9) == nil)
        #expect(hub.recorder.count("firstRemoteVideoFrame") == 1)
    }

    @Test func simulatedUsersAndHubUsersAreToldApartAndTheSimulationNeverSendsAHubUserOffline() async throws {
        let hub = HubHarness(remoteUsers: 2)
        await hub.join(users: [9])
        await hub.h.advance(10)
        let simulated = hub.engine.simulatedRemoteUids
        #expect(simulated.count == 2)
        #expect(!simulated.contains(9))
        #expect(Set(hub.engine.remoteUids) == Set(simulated + [9]))
        #expect(simulated.allSatisfy { hub.engine.videoSource(forUid: $0) != nil && hub.engine.receivedVideo(forUid: $0) == nil })
        // A frame claiming to be a simulated user's is not theirs.
        hub.link.inject(.video(hub.frame(from: UInt32(simulated[0]))))
        await hub.h.settle()
        #expect(hub.engine.receivedVideo(forUid: simulated[0]) == nil)

        let added = try #require(hub.engine.simulateRemoteUserJoin())
        #expect(hub.engine.simulateRemoteUserLeave(simulated[0]) == simulated[0])
        await hub.h.advance(5)
        #expect(hub.engine.simulatedRemoteUids.contains(added))
        #expect(hub.engine.remoteUids.contains(9))
        #expect(!hub.recorder.events.contains(.didOfflineOfUid(9, reason: .quit)))
    }

    @Test func theRoleChangesWhenTheHubSaysSoAndLeavingTellsTheHub() async {
        let hub = HubHarness()
        await hub.join(users: [7])
        hub.recorder.clear()
        hub.engine.setClientRole(.audience)
        await hub.h.settle()
        #expect(hub.link.requests.last == .setRole(.audience))
        #expect(hub.recorder.count("didClientRoleChanged") == 0)
        #expect(hub.engine.clientRole == .broadcaster, "the role held until the hub makes the change")
        hub.link.inject(.clientRoleChanged(old: .broadcaster, new: .audience))
        await hub.h.settle()
        #expect(hub.recorder.events == [
            .didClientRoleChanged(old: .broadcaster, new: .audience),
            .simulatorNotice(.localUserOfflineForPeers(.becomeAudience)),
        ])
        #expect(hub.engine.clientRole == .audience)

        hub.engine.leaveChannel()
        await hub.h.settle()
        #expect(hub.link.requests.last == .leave)
        #expect(hub.recorder.states.last == .connectionStateChanged(.disconnected, reason: .reasonLeaveChannel))
        // What the hub said before answering the leave is about the channel left.
        hub.engine.joinChannel(byToken: hub.h.token(), channelId: "test", uid: 42)
        hub.link.inject(hub.joined(users: [7]))
        hub.link.inject(.connectionStateChanged(state: AgoraConnectionState.disconnected,
                                                reason: .reasonLeaveChannel, error: nil))
        await hub.h.settle()
        #expect(hub.engine.connectionState == .connecting)
        hub.link.inject(hub.joined(users: [7]))
        await hub.h.settle()
        #expect(hub.engine.connectionState == .connected)
        #expect(hub.recorder.count("didJoinChannel") == 1)
    }

    @Test func aRoleChangeLeftBeforeTheHubMadeItIsNotTheRoleTheNextJoinTakes() async {
        let hub = HubHarness()
        await hub.join()
        hub.engine.setClientRole(.audience)
        await hub.h.settle()
        #expect(hub.link.requests.last == .setRole(.audience))
        hub.engine.leaveChannel()
        await hub.h.settle()
        #expect(hub.engine.clientRole == .broadcaster)
        hub.link.inject(.clientRoleChanged(old: .broadcaster, new: .audience))
        hub.link.inject(.connectionStateChanged(state: AgoraConnectionState.disconnected, reason: .reasonLeaveChannel, error: nil))
        hub.engine.joinChannel(byToken: hub.h.token(), channelId: "test", uid: 42)
        await hub.h.settle()
        #expect(hub.link.joins.last?.role == .broadcaster)
        #expect(hub.recorder.count("didClientRoleChanged") == 0)
    }

    @Test func aLeaveWhileTheNetworkIsCutReachesTheHubBeforeTheNextJoinSoThatJoinIsLetIn() async {
        let hub = HubHarness()
        let token = await hub.join(users: [7])
        hub.engine.simulateNetworkInterruption(true)
        await hub.h.advance(5)
        hub.engine.leaveChannel()
        await hub.h.settle()
        // The link holds it while silent: back within the hub's silence limit, the hub still has the user.
        #expect(hub.link.requests.last == .leave)
        hub.engine.simulateNetworkInterruption(false)
        hub.engine.joinChannel(byToken: token, channelId: "test", uid: 42)
        await hub.h.settle()
        #expect(hub.link.requests.suffix(2) == [.leave, .join(HubJoin(appId: TestCredentials.appID, channel: "test",
                                                                         user: .uid(42), token: token, media: HubMedia(audio: .on, video: .off)))])
        hub.recorder.clear()
        hub.link.inject(.connectionStateChanged(state: AgoraConnectionState.disconnected,
                                                reason: .reasonLeaveChannel, error: nil))
        hub.link.inject(hub.joined(users: [7]))
        await hub.h.settle()
        #expect(hub.engine.connectionState == .connected)
        #expect(hub.recorder.count("didJoinChannel") == 1)
    }

    @Test func aBroadcasterWithVideoSendsItsPictureTenTimesASecond() async throws {
        let hub = HubHarness()
        hub.engine.enableVideo()
        await hub.join()
        await hub.h.advance(1)
        let frames = hub.link.frames
        #expect(frames.count == 11)  // at the join, then every 100 ms
        let expected = VideoFrameSource(uid: 42).frame(at: .seconds(1), width: 32, height: 18)
        let last = try #require(frames.last)
        #expect((last.columns, last.rows) == (HubVideoFrame.sentColumns, HubVideoFrame.sentRows))
        #expect(last.cells == expected.pixels.map { HubVideoFrame.Color(red: $0.red, green: $0.green, blue: $0.blue) })

        hub.engine.disableVideo()
        await hub.h.advance(1)
        #expect(hub.link.frames.count == 11)
        hub.engine.enableVideo()
        hub.engine.setClientRole(.audience)
        hub.link.inject(.clientRoleChanged(old: .broadcaster, new: .audience))
        await hub.h.advance(1)
        #expect(hub.link.frames.count == 11)
    }

    @Test func aShortInterruptionSilencesTheLinkAndTheHubKeepsUs() async {
        let hub = HubHarness()
        hub.engine.enableVideo()
        await hub.join(users: [7])
        hub.engine.simulateNetworkInterruption(true)
        await hub.h.advance(10)
        #expect(hub.link.silences == [true])
        #expect(hub.recorder.states.last == .connectionStateChanged(.reconnecting, reason: .reasonLost))
        let sent = hub.link.frames.count
        await hub.h.advance(5)
        #expect(hub.link.frames.count == sent)
        hub.recorder.clear()
        hub.engine.simulateNetworkInterruption(false)
        await hub.h.settle()
        #expect(hub.link.silences == [true, false])
        #expect(hub.recorder.states == [.connectionStateChanged(.connected, reason: .reasonRejoinSuccess)])
        #expect(hub.recorder.count("didRejoinChannel") == 1)
        #expect(hub.engine.remoteUids == [7])
        await hub.h.advance(1)
        #expect(hub.link.frames.count > sent)
    }

    @Test func aPeerDroppedAndBackWithinTwentySecondsIsNeverSeenToLeave() async {
        let hub = HubHarness()
        await hub.join(users: [7])
        hub.link.inject(.userOffline(uid: 7, reason: .dropped))
        await hub.h.advance(5)
        hub.link.inject(.userJoined(HubPeer(uid: 7, account: nil)))
        await hub.h.advance(30)
        #expect(hub.recorder.count("didOfflineOfUid") == 0)
        #expect(hub.recorder.count("didJoinedOfUid") == 1)
        #expect(hub.engine.remoteUids == [7])
    }

    @Test func aPeerTheHubDroppedForSilenceIsSeenDroppedTwentySecondsAfterItWentSilentNotForty() async throws {
        let hub = HubHarness()
        await hub.join(users: [7, 8])
        // As the hub writes them: 7 silent for its whole limit of 20 s, 8 for 15 s of it.
        hub.link.inject(try HubNotice(json: #"{"reason":"dropped","reasonCode":1,"silentMs":20000,"type":"userOffline","uid":7}"#))
        hub.link.inject(try HubNotice(json: #"{"reason":"dropped","reasonCode":1,"silentMs":15000,"type":"userOffline","uid":8}"#))
        await hub.h.settle()
        #expect(hub.recorder.events.filter { $0.name == "didOfflineOfUid" } == [.didOfflineOfUid(7, reason: .dropped)])
        await hub.h.advance(4.9)
        #expect(hub.recorder.count("didOfflineOfUid") == 1)
        await hub.h.advance(0.2)
        #expect(hub.recorder.events.filter { $0.name == "didOfflineOfUid" }.last == .didOfflineOfUid(8, reason: .dropped))
        #expect(hub.engine.remoteUids == [])
    }

    @Test func aHubSilentForTwentySecondsHasThePeersDroppedAtOnceNotTwentySecondsLater() async {
        let hub = HubHarness()
        await hub.join(users: [7])
        hub.recorder.clear()
        hub.link.inject(.lost(reason: "nothing heard from the hub for 20 s; the hub is taken for gone", silence: HubSilence.limit))
        await hub.h.settle()
        #expect(hub.recorder.states == [.connectionStateChanged(.reconnecting, reason: .reasonInterrupted),
                                        .connectionStateChanged(.reconnecting, reason: .reasonLost)])
        #expect(hub.recorder.events.contains(.didOfflineOfUid(7, reason: .dropped)))
        #expect(hub.recorder.events.contains(.simulatorNotice(.localUserOfflineForPeers(.dropped))))
    }

    @Test func backAfterTheLinkBrokeAPeerNotThereYetIsKeptForTwentySeconds() async {
        let hub = HubHarness()
        await hub.join(users: [7, 8])
        // The hub died; the engine is back first on another hub, where 7 arrives 3 s later and 8 never does.
        hub.link.inject(.lost(reason: "closed with 1001: the server is stopping"))
        hub.link.inject(.connected)
        await hub.h.settle()
        hub.link.inject(hub.joined(users: []))
        await hub.h.settle()
        #expect(hub.recorder.count("didRejoinChannel") == 1)
        await hub.h.advance(3)
        hub.link.inject(.userJoined(HubPeer(uid: 7, account: nil)))
        await hub.h.advance(16.5)
        #expect(hub.recorder.count("didOfflineOfUid") == 0)
        #expect(hub.recorder.count("didJoinedOfUid") == 2)
        await hub.h.advance(1)
        #expect(hub.recorder.events.filter { $0.name == "didOfflineOfUid" } == [.didOfflineOfUid(8, reason: .dropped)])
        #expect(hub.engine.remoteUids == [7])
    }

    @Test func droppedByTheHubTheEngineJoinsAgainAndRejoins() async {
        let hub = HubHarness()
        let token = await hub.join(users: [7])
        hub.engine.simulateNetworkInterruption(true)
        await hub.h.advance(25)
        #expect(hub.recorder.events.contains(.didOfflineOfUid(7, reason: .dropped)))
        hub.link.clear()
        hub.recorder.clear()
        hub.engine.simulateNetworkInterruption(false)
        await hub.h.settle()
        #expect(hub.engine.connectionState == .reconnecting)
        // The hub dropped us: the link finds the connection gone and opens another.
        hub.link.inject(.lost(reason: "connection closed"))
        hub.link.inject(.connected)
        await hub.h.settle()
        #expect(hub.link.joins.last?.token == token)
        hub.link.inject(hub.joined(users: [7, 8]))
        await hub.h.settle()
        #expect(hub.recorder.states.last == .connectionStateChanged(.connected, reason: .reasonRejoinSuccess))
        #expect(hub.recorder.count("didRejoinChannel") == 1)
        #expect(hub.recorder.count("didJoinChannel") == 0)
        #expect(hub.engine.remoteUids == [7, 8])
        #expect(hub.recorder.events.contains(.simulatorNotice(.hubLost(reason: "connection closed"))))
    }

    @Test func keptByTheHubThroughALongSilenceItsRefusalOfASecondJoinRejoins() async {
        let hub = HubHarness()
        await hub.join(users: [7])
        hub.engine.simulateNetworkInterruption(true)
        await hub.h.advance(25)
        hub.recorder.clear()
        hub.engine.simulateNetworkInterruption(false)
        await hub.h.settle()
        #expect(hub.link.joins.count == 2)
        hub.link.inject(.error("already in channel test as uid 42; leave first"))
        await hub.h.settle()
        #expect(hub.recorder.states == [.connectionStateChanged(.connected, reason: .reasonRejoinSuccess)])
        #expect(hub.recorder.count("didRejoinChannel") == 1)
        #expect(hub.engine.remoteUids == [7])
    }

    @Test func aHubRestartReconnectsAndAnExpiredTokenAsksForANewOne() async {
        let hub = HubHarness()
        let token = await hub.join(users: [7])
        hub.recorder.clear()
        hub.link.inject(.lost(reason: "connection refused"))
        await hub.h.settle()
        #expect(hub.recorder.events.filter { $0.name != "simulatorNotice" } == [
            .connectionStateChanged(.reconnecting, reason: .reasonInterrupted), .connectionInterrupted,
        ])
        #expect(hub.engine.hubLinkState == .lost(reason: "connection refused"))
        await hub.h.advance(10)
        #expect(hub.recorder.states.last == .connectionStateChanged(.reconnecting, reason: .reasonLost))
        hub.link.clear()
        hub.link.inject(.connected)
        await hub.h.settle()
        #expect(hub.link.joins.map(\.token) == [token])
        hub.recorder.clear()
        hub.link.inject(HubHarness.tokenRanOut)
        await hub.h.settle()
        #expect(Array(hub.recorder.events.prefix(2)) == [.requestToken, .connectionStateChanged(.failed, reason: .reasonTokenExpired)])
        #expect(hub.engine.hubLinkState == .connected)
    }

    @Test func everythingReachesTheLinkUnderTheEnginesLockSoNoOtherThreadsRequestCanOvertakeIt() async {
        var watching: LockWatchingLink!
        let hub = HubHarness { fake in
            watching = LockWatchingLink(fake)
            return watching
        }
        watching.watch(hub.engine.lock)
        hub.engine.enableVideo()
        let token = await hub.join(users: [7])
        await hub.h.advance(0.2)
        hub.engine.setClientRole(.audience)
        hub.engine.renewToken(token)
        hub.engine.simulateNetworkInterruption(true)
        hub.engine.simulateNetworkInterruption(false)
        hub.engine.leaveChannel()
        await hub.h.settle()
        #expect(hub.link.requests.count == 4)
        #expect(hub.link.requests.dropFirst() == [.setRole(.audience), .renew(token: token), .leave])
        #expect(hub.link.frames.count >= 3)
        #expect(hub.link.silences == [true, false])
        #expect(watching.callsWithTheLockFree == [], "another thread could have sent between the engine's deciding and these")
    }
}

/// A hub link that notes each call made while another thread could take the engine's lock; the fake records it.
final class LockWatchingLink: HubLink {
    let fake: FakeHubLink
    private let engineLock = Mutex<NSRecursiveLock?>(nil)
    private let unguarded = Mutex<[String]>([])

    init(_ fake: FakeHubLink) {
        self.fake = fake
    }

    func watch(_ lock: NSRecursiveLock) { engineLock.withLock { $0 = lock } }

    /// The calls made while the engine's lock was free.
    var callsWithTheLockFree: [String] { unguarded.withLock { $0 } }

    func open(events: @escaping @Sendable (HubLinkEvent) -> Void) { fake.open(events: events) }
    func send(_ request: HubRequest) {
        note("send " + "\(request)".prefix { $0 != "(" })  // the case, not the token
        fake.send(request)
    }
    func sendVideo(_ frame: HubVideoFrame) { note("sendVideo"); fake.sendVideo(frame) }
    func setSilent(_ silent: Bool) { note("setSilent \(silent)"); fake.setSilent(silent) }
    func close() { fake.close() }
    func drop(_ reason: String) { note("drop"); fake.drop(reason) }

    /// Tries the lock from another thread, which only succeeds when no thread holds it.
    private func note(_ call: String) {
        guard let lock = engineLock.withLock({ $0 }) else { return }
        let free = Mutex(false)
        let tried = DispatchSemaphore(value: 0)
        Thread {
            if lock.try() {
                lock.unlock()
                free.withLock { $0 = true }
            }
            tried.signal()
        }.start()
        tried.wait()
        if free.withLock({ $0 }) { unguarded.withLock { $0.append(call) } }
    }
}
