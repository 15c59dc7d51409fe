import AccessToken
@testable import ChannelEngine
import Testing
import TestSupport

typealias TestSupportClock = ManualClock

@MainActor
@Suite struct TokenLifecycleTests {
    @Test func willExpireFiresExactly30SecondsBeforeExpiryThenRequestTokenAtExpiry() async {
        let h = Harness()
        await h.join(expire: 120)  // joined at 0.25 s; token issued at 0 expires at 120 s
        await h.advance(88.9)      // now 89.9 s
        #expect(h.recorder.count("tokenPrivilegeWillExpire") == 0)
        await h.advance(0.2)
        #expect(h.recorder.times(of: "tokenPrivilegeWillExpire") == [.seconds(90)])
        await h.advance(29.8)
        #expect(h.recorder.count("requestToken") == 0)
        h.recorder.clear()
        await h.advance(0.2)
        #expect(h.recorder.times(of: "requestToken") == [.seconds(120)])
        #expect(Array(h.recorder.events.prefix(2)) == [.requestToken, .connectionStateChanged(.failed, reason: .reasonTokenExpired)])
        #expect(h.recorder.events.contains(.simulatorNotice(.localUserOfflineForPeers(.quit))))
        #expect(h.engine.connectionState == .failed)
        await h.advance(600)
        #expect(h.recorder.count("tokenPrivilegeWillExpire") == 0)
        #expect(h.recorder.count("requestToken") == 1)
    }

    @Test func theLeadIsASettingOfTheSimulator() async {
        let clock = ManualClockFactory.make()
        let recorder = Recorder()
        let engine = AgoraRtcEngineKit(config: AgoraRtcEngineConfig(appId: TestCredentials.appID, simulation: Simulation(
            appCertificate: TestCredentials.certificate, clock: clock, unixTime: { clock.unixTime }, remoteUsers: 0,
            willExpireLead: .seconds(10))), delegate: recorder)
        let token = try! AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, channel: "test", user: .uid(1),
                                               role: .publisher, tokenExpire: 60, privilegeExpire: 60,
                                               issuedAt: UInt32(clock.unixTime))
        engine.joinChannel(byToken: token, channelId: "test", uid: 1)
        await clock.advance(by: .seconds(120))
        #expect(recorder.times(of: "tokenPrivilegeWillExpire") == [.seconds(50)])
    }

    @Test func aTokenWith30SecondsOrLessLeftWarnsAtOnceAndIsFlaggedShort() async throws {
        let h = Harness()
        let token = h.token(expire: 20)
        h.engine.joinChannel(byToken: token, channelId: "test", uid: 42)
        await h.advance(1)
        let events = h.recorder.events
        let joined = try #require(events.firstIndex { $0.name == "didJoinChannel" })
        #expect(events.dropFirst(joined + 1).prefix(2) == [
            .simulatorNotice(.tokenAccepted(expiresAt: 1_800_000_020, short: true)),
            .tokenPrivilegeWillExpire(token: token),
        ])
        #expect(h.recorder.times(of: "tokenPrivilegeWillExpire") == [.milliseconds(250)])
        await h.advance(30)
        #expect(h.recorder.count("tokenPrivilegeWillExpire") == 1)
        #expect(h.recorder.times(of: "requestToken") == [.seconds(20)])
    }

    @Test func theTokenInUseRenewedAfterItsWarningSucceedsButNeitherWarnsAgainNorMovesItsExpiry() async {
        let h = Harness()
        await h.join(expire: 40)
        await h.advance(11)  // warned at 10 s
        let token = h.engine.currentToken!
        #expect(h.engine.renewToken(token) == 0)
        await h.settle()
        #expect(h.recorder.events.suffix(2) == [
            .renewTokenResult(token: token, code: .success),
            .simulatorNotice(.tokenAccepted(expiresAt: 1_800_000_040, short: false)),
        ], "not short: no warning comes with it")
        await h.advance(30)
        #expect(h.recorder.count("tokenPrivilegeWillExpire") == 1)
        #expect(h.recorder.times(of: "requestToken") == [.seconds(40)])
        #expect(h.engine.connectionState == .failed)
    }

    @Test func renewingCancelsTheOldTokensTimers() async {
        let h = Harness()
        await h.join(expire: 120)
        await h.advance(59.75)  // now 60 s
        let fresh = h.token(expire: 120)  // issued at 60 s, expires at 180 s
        #expect(h.engine.renewToken(fresh) == 0)
        await h.settle()
        #expect(h.recorder.events.last == .simulatorNotice(.tokenAccepted(expiresAt: 1_800_000_180, short: false)))
        #expect(h.recorder.events.contains(.renewTokenResult(token: fresh, code: .success)))
        await h.advance(100)  // past the old 90 s warning and 120 s expiry
        #expect(h.recorder.times(of: "tokenPrivilegeWillExpire") == [.seconds(150)])
        #expect(h.recorder.count("requestToken") == 0)
        #expect(h.engine.connectionState == .connected)
    }

    @Test func aRefusedRenewalKeepsTheOldTokenAndItsCountdown() async {
        let h = Harness()
        await h.join(expire: 120)
        let cases: [(String, AgoraRenewTokenErrorCode)] = [
            (h.token(appId: "0123456789abcdef0123456789abcdef"), .inconsistentAppId),
            (h.token(expire: 10, issuedAgo: 11), .tokenExpired),
            (h.token(channel: "elsewhere"), .invalidChannelName),
            (h.token(uid: 7), .invalidToken),
            (h.token(signedWith: String(repeating: "c", count: 32)), .invalidToken),
            ("007nonsense", .invalidToken),
        ]
        for (token, code) in cases {
            h.engine.renewToken(token)
            await h.settle()
            #expect(h.recorder.events.last == .renewTokenResult(token: token, code: code))
        }
        #expect(h.engine.tokenExpiresAt == 1_800_000_120)
        await h.advance(130)
        #expect(h.recorder.times(of: "requestToken") == [.seconds(120)])
    }

    @Test func renewingAfterExpiryGoesConnectingThenConnected() async {
        let h = Harness(remoteUsers: 1)
        await h.join(expire: 60)
        await h.advance(60)
        #expect(h.engine.connectionState == .failed)
        h.recorder.clear()
        let fresh = h.token(expire: 600)
        #expect(h.engine.renewToken(fresh) == 0)
        await h.settle()
        #expect(h.recorder.events == [.connectionStateChanged(.connecting, reason: .reasonRenewToken)])
        await h.advance(1)
        #expect(h.recorder.states.last == .connectionStateChanged(.connected, reason: .reasonRejoinSuccess))
        let answer = h.recorder.events.firstIndex(of: .renewTokenResult(token: fresh, code: .success))
        let connected = h.recorder.events.firstIndex(of: .connectionStateChanged(.connected, reason: .reasonRejoinSuccess))
        #expect(answer.map { $0 > connected! } == true, "answered when the join is, as through a hub")
        #expect(h.recorder.count("didJoinedOfUid") == 1)
        #expect(h.engine.tokenExpiresAt == Int64(h.clock.unixTime) - 1 + 600)
    }

    @Test func expireNowIsADemoOfRequestToken() async {
        let h = Harness()
        await h.join(expire: 3600)
        h.recorder.clear()
        h.engine.simulateTokenExpiry()
        await h.settle()
        #expect(Array(h.recorder.events.prefix(2)) == [.requestToken, .connectionStateChanged(.failed, reason: .reasonTokenExpired)])
    }

    @Test func theThreeRenewalPathsAreReportedDifferently() async {
        // renewToken: a result callback, remote users stay.
        let renew = Harness(remoteUsers: 2)
        await renew.join()
        await renew.advance(10)
        renew.recorder.clear()
        let token = renew.token()
        renew.engine.renewToken(token)
        await renew.settle()
        #expect(renew.recorder.events.map(\.name) == ["renewTokenResult", "simulatorNotice"])

        // updateChannel: no result callback, remote users stay.
        let update = Harness(remoteUsers: 2)
        await update.join()
        await update.advance(10)
        update.recorder.clear()
        #expect(update.engine.updateChannel(with: AgoraRtcChannelMediaOptions(token: update.token(expire: 900))) == 0)
        await update.settle()
        #expect(update.recorder.events.map(\.name) == ["simulatorNotice"])
        #expect(update.engine.tokenExpiresAt == Int64(update.clock.unixTime) + 900)

        // leave then join: remote users are dropped and announced again.
        let rejoin = Harness(remoteUsers: 2)
        await rejoin.join()
        await rejoin.advance(10)
        #expect(rejoin.engine.remoteUids.count == 2)
        rejoin.recorder.clear()
        rejoin.engine.leaveChannel()
        #expect(rejoin.engine.remoteUids.isEmpty)
        rejoin.engine.joinChannel(byToken: rejoin.token(), channelId: "test", uid: 42)
        await rejoin.advance(1)
        #expect(rejoin.recorder.events.map(\.name).prefix(6) == [
            "connectionStateChanged", "didLeaveChannel", "simulatorNotice", "connectionStateChanged",
            "connectionStateChanged", "didJoinChannel",
        ])
        #expect(rejoin.recorder.count("didJoinedOfUid") == 2)
        #expect(rejoin.recorder.count("firstRemoteVideoFrame") == 2)
    }

    @Test func anUpdateWithABadTokenReportsAnErrorAndKeepsTheOldOne() async {
        let h = Harness()
        await h.join(expire: 120)
        h.engine.updateChannel(with: AgoraRtcChannelMediaOptions(token: h.token(uid: 9)))
        await h.settle()
        #expect(h.recorder.events.last == .didOccurError(.invalidToken))
        #expect(h.engine.tokenExpiresAt == 1_800_000_120)
    }

    @Test func aDayOf40SecondTokensRenewedOnEachWarningNeverExpires() async {
        let h = Harness(remoteUsers: 2, churn: true)
        var renewals = 0
        h.recorder.react = { engine, event in
            guard case .tokenPrivilegeWillExpire = event else { return }
            renewals += 1
            #expect(engine.renewToken(h.token(expire: 40)) == 0)
        }
        h.engine.joinChannel(byToken: h.token(expire: 40), channelId: "test", uid: 42)
        await h.advance(24 * 3600)
        // Each 40 s token warns 30 s before it ends, so a renewal comes every 10 s: 8640 in a day.
        #expect(renewals == 8640)
        #expect(h.recorder.count("requestToken") == 0)
        #expect(h.recorder.states == [
            .connectionStateChanged(.connecting, reason: .reasonConnecting),
            .connectionStateChanged(.connected, reason: .reasonJoinSuccess),
        ])
        #expect(h.recorder.count("renewTokenResult") == renewals)
        #expect(!h.recorder.reentered)
        // Exactly one warning per token: every token accepted was warned about once.
        let accepted = h.recorder.events.filter { if case .simulatorNotice(.tokenAccepted) = $0 { true } else { false } }
        #expect(accepted.count == renewals + 1)
        #expect(h.recorder.count("tokenPrivilegeWillExpire") == renewals)
    }

    @Test func withoutRenewalADayEndsAfterTheFirstToken() async {
        let h = Harness()
        await h.join(expire: 40)
        await h.advance(24 * 3600)
        #expect(h.recorder.times(of: "tokenPrivilegeWillExpire") == [.seconds(10)])
        #expect(h.recorder.times(of: "requestToken") == [.seconds(40)])
        #expect(h.recorder.states.last == .connectionStateChanged(.failed, reason: .reasonTokenExpired))
    }

    @Test func callbacksAreNeverReentrant() async throws {
        let h = Harness()
        var order: [String] = []
        h.recorder.react = { engine, event in
            order.append(event.name)
            if case .tokenPrivilegeWillExpire = event {
                engine.renewToken(h.token(expire: 600))
                order.append("renewToken returned")
            }
        }
        await h.join(expire: 40)
        await h.advance(10)
        #expect(!h.recorder.reentered)
        let warned = try #require(order.firstIndex(of: "tokenPrivilegeWillExpire"))
        #expect(order.dropFirst(warned + 1).prefix(2) == ["renewToken returned", "renewTokenResult"])
    }
}

enum ManualClockFactory {
    static func make() -> TestSupportClock { TestSupportClock(unixTime: 1_800_000_000) }
}
