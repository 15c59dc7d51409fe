import AccessToken
@testable import ChannelEngine
import TestSupport
import Testing

@MainActor
@Suite struct JoinTests {
    @Test func aGoodTokenJoinsAfterTheNetworkAnswers() async {
        let h = Harness()
        #expect(h.engine.joinChannel(byToken: h.token(), channelId: "test", uid: 42) == 0)
        await h.settle()
        #expect(h.recorder.events == [.connectionStateChanged(.connecting, reason: .reasonConnecting)])
        #expect(h.engine.connectionState == .connecting)
        await h.advance(1)
        #expect(h.recorder.events.prefix(3) == [
            .connectionStateChanged(.connecting, reason: .reasonConnecting),
            .connectionStateChanged(.connected, reason: .reasonJoinSuccess),
            .didJoinChannel(channel: "test", uid: 42, elapsed: 250),
        ])
        #expect(h.engine.connectionState == .connected)
        #expect(h.engine.tokenExpiresAt == 1_800_000_600)
    }

    /// Apps get each callback at its Agora-named delegate method; the simulator's own consumers get the same ones, in
    /// the same order, as values through the observer.
    @Test func theDelegateAndTheObserverSeeTheSameCallbacks() async {
        let h = Harness(remoteUsers: 2)
        let delegate = Recorder()
        h.engine.delegate = delegate
        await h.join(expire: 40)
        h.engine.setClientRole(.audience)
        h.engine.simulateNetworkInterruption(true)
        await h.advance(15)
        h.engine.simulateNetworkInterruption(false)
        await h.advance(40)
        h.engine.leaveChannel()
        await h.advance(1)
        let names = Set(h.recorder.events.map(\.name))
        #expect(names.isSuperset(of: ["didJoinChannel", "connectionStateChanged", "didJoinedOfUid", "firstRemoteVideoFrame",
                                      "tokenPrivilegeWillExpire", "requestToken", "didClientRoleChanged", "didLeaveChannel",
                                      "simulatorNotice"]), "\(names.sorted())")
        #expect(delegate.events == h.recorder.events)
    }

    @Test func argumentsAreCheckedAtTheAPI() async {
        let h = Harness()
        #expect(h.engine.joinChannel(byToken: h.token(), channelId: "bad/name", uid: 1) == -102)
        #expect(h.engine.joinChannel(byToken: h.token(), channelId: "", uid: 1) == -102)
        #expect(h.engine.joinChannel(byToken: h.token(), channelId: "test", uid: UInt(UInt32.max) + 1) == -121)
        #expect(h.recorder.events.isEmpty)
        #expect(h.engine.renewToken("") == -2)
        #expect(h.engine.updateChannel(with: AgoraRtcChannelMediaOptions(token: "x")) == -8)
        await h.join()
        #expect(h.engine.joinChannel(byToken: h.token(), channelId: "test", uid: 42) == -17)
    }

    @Test func uidZeroGetsASeededUid() async throws {
        func assigned(seed: UInt64) async throws -> UInt {
            let h = Harness(seed: seed)
            h.engine.joinChannel(byToken: h.token(uid: 0), channelId: "test", uid: 0)
            await h.advance(1)
            let uid = try #require(h.recorder.events.lazy.compactMap { event -> UInt? in
                if case .didJoinChannel(_, let uid, _) = event { uid } else { nil }
            }.first)
            #expect(h.engine.connection?.localUid == uid)
            return uid
        }
        let first = try await assigned(seed: 1)
        #expect(first != 0)
        #expect(try await assigned(seed: 1) == first)
        #expect(try await assigned(seed: 2) != first)
    }

    @Test func uidZeroKeepsTheUidItWasGivenAtEveryLaterJoin() async throws {
        let h = Harness()
        var joined: [UInt] = []
        for _ in 0..<3 {
            h.engine.joinChannel(byToken: h.token(uid: 0), channelId: "test", uid: 0)
            await h.advance(1)
            joined.append(try #require(h.engine.connection?.localUid))
            h.engine.leaveChannel()
            await h.advance(1)
        }
        #expect(Set(joined).count == 1, "\(joined)")
        h.engine.joinChannel(byToken: h.token(uid: 7), channelId: "test", uid: 7)
        await h.advance(1)
        #expect(h.engine.connection?.localUid == 7, "a uid given is the one joined with")
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        let token: @Sendable @MainActor (Harness) -> String?
        let state: AgoraConnectionState
        let reason: AgoraConnectionChangedReason
        let error: AgoraErrorCode
        var testDescription: String { name }
    }

    nonisolated static let refusals: [Refusal] = [
        Refusal(name: "wrong certificate", token: { $0.token(signedWith: String(repeating: "a", count: 32)) },
                state: .disconnected, reason: .reasonInvalidToken, error: .invalidToken),
        Refusal(name: "other channel", token: { $0.token(channel: "other") },
                state: .disconnected, reason: .reasonInvalidToken, error: .invalidToken),
        Refusal(name: "other uid", token: { $0.token(uid: 43) }, state: .disconnected, reason: .reasonInvalidToken, error: .invalidToken),
        Refusal(name: "garbage", token: { _ in "007garbage" }, state: .disconnected, reason: .reasonInvalidToken, error: .invalidToken),
        Refusal(name: "an App ID instead of a token", token: { _ in TestCredentials.appID },
                state: .disconnected, reason: .reasonInvalidToken, error: .invalidToken),
        Refusal(name: "no token while a certificate is on", token: { _ in nil },
                state: .disconnected, reason: .reasonInvalidToken, error: .invalidToken),
        Refusal(name: "expired", token: { $0.token(expire: 60, issuedAgo: 61) },
                state: .failed, reason: .reasonTokenExpired, error: .tokenExpired),
        Refusal(name: "join privilege expired", token: { $0.token(expire: 600, privilegeExpire: 30, issuedAgo: 31) },
                state: .failed, reason: .reasonTokenExpired, error: .tokenExpired),
        // Agora's token FAQ: a token built for another App ID is an invalid token.
        Refusal(name: "other App ID", token: { $0.token(appId: "0123456789abcdef0123456789abcdef") },
                state: .disconnected, reason: .reasonInvalidToken, error: .invalidToken),
    ]

    @Test(arguments: refusals)
    func eachRefusalMapsToAgorasStateReasonAndError(refusal: Refusal) async {
        let h = Harness()
        #expect(h.engine.joinChannel(byToken: refusal.token(h), channelId: "test", uid: 42) == 0)
        await h.advance(1)
        #expect(h.recorder.events == [
            .connectionStateChanged(.connecting, reason: .reasonConnecting),
            .connectionStateChanged(refusal.state, reason: refusal.reason),
            .didOccurError(refusal.error),
        ])
        #expect(h.engine.remoteUids.isEmpty)
    }

    @Test func aMalformedEngineAppIdFailsTheJoin() async {
        let h = Harness(appId: "not-an-app-id")
        h.engine.joinChannel(byToken: h.token(), channelId: "test", uid: 42)
        await h.advance(1)
        #expect(h.recorder.states.last == .connectionStateChanged(.failed, reason: .reasonInvalidAppId))
        #expect(h.recorder.events.last == .didOccurError(.invalidAppId))
    }

    @Test func aTokenForUidZeroFitsAnyUid() async {
        let h = Harness()
        h.engine.joinChannel(byToken: h.token(uid: 0), channelId: "test", uid: 4_000_000_000)
        await h.advance(1)
        #expect(h.engine.connectionState == .connected)
    }

    @Test func withoutACertificateTheSignatureIsNotCheckedAndTheEngineSaysSoOnce() async {
        let h = Harness(certificate: nil)
        h.engine.joinChannel(byToken: h.token(signedWith: String(repeating: "a", count: 32)), channelId: "test", uid: 42)
        await h.advance(1)
        #expect(h.engine.connectionState == .connected)
        h.engine.renewToken(h.token(signedWith: String(repeating: "b", count: 32)))
        await h.settle()
        #expect(h.recorder.events.filter { $0 == .simulatorNotice(.signatureNotChecked) }.count == 1)
        #expect(h.recorder.events.contains(.renewTokenResult(token: h.token(signedWith: String(repeating: "b", count: 32)), code: .success)))
    }

    @Test func withoutACertificateNoTokenJoinsInTestingMode() async {
        let h = Harness(certificate: nil)
        h.engine.joinChannel(byToken: nil, channelId: "test", uid: 42)
        await h.advance(3600)
        #expect(h.engine.connectionState == .connected)
        #expect(h.recorder.count("tokenPrivilegeWillExpire") == 0)
        #expect(h.recorder.count("requestToken") == 0)
    }

    @Test func leavingSaysDisconnectedThenDidLeaveWithTheCallsStatistics() async {
        let h = Harness()
        await h.join()
        await h.advance(10)
        h.recorder.clear()
        var blockStats: AgoraChannelStats?
        #expect(h.engine.leaveChannel { blockStats = $0 } == 0)
        await h.settle()
        var stats = AgoraChannelStats()
        stats.duration = 10
        stats.userCount = 1
        #expect(h.recorder.events == [
            .connectionStateChanged(.disconnected, reason: .reasonLeaveChannel),
            .didLeaveChannel(channel: "test", uid: 42, stats: stats),
            .simulatorNotice(.localUserOfflineForPeers(.quit)),
        ])
        #expect(blockStats == stats)
        await h.advance(700)
        #expect(h.recorder.count("requestToken") == 0)
        #expect(h.recorder.count("tokenPrivilegeWillExpire") == 0)
    }
}
