import AccessToken
import ChannelEngine
import Foundation
import TestSupport
import Testing
import TokenServer
@testable import CallSession

/// A session on a manual clock whose wall time the embedded server shares, recording its events.
@MainActor
final class SessionHarness {
    let clock: ManualClock
    let session: CallSession
    var events: [SessionEvent] = []

    /// A manual clock whose wall time starts at the real time now, so real servers' tokens fit it.
    static func makeClock() -> ManualClock { ManualClock(unixTime: Double(Int(Date().timeIntervalSince1970))) }

    init(clock: ManualClock = makeClock(), _ adjust: (inout CallSession.Configuration) -> Void = { _ in }) {
        self.clock = clock
        var config = CallSession.Configuration()
        config.clock = clock
        let clock = clock
        config.unixTime = { clock.unixTime }
        config.remoteUsers = 0
        config.seed = 1
        adjust(&config)
        session = CallSession(config)
        session.onEvent = { [unowned self] in events.append($0) }
    }

    func names() -> [String] { events.map(\.name) }
    func count(_ name: String) -> Int { events.filter { $0.name == name }.count }
    func first(_ name: String) -> SessionEvent? { events.first { $0.name == name } }

    /// Advances in small steps, letting real network answers (loopback) arrive between them.
    func run(for seconds: Double, step: Double = 0.25) async {
        var left = seconds
        while left > 0 {
            await settle()
            await clock.advance(by: .milliseconds(Int64(min(step, left) * 1000)))
            left -= step
        }
        await settle()
    }

    /// Gives a fetch crossing a real socket up to `timeout` of real time to finish, and `condition` to hold.
    func settle(until condition: () -> Bool = { true }, timeout: Duration = .milliseconds(200)) async {
        let deadline = ContinuousClock.now + timeout
        repeat {
            for _ in 0..<20 { await Task.yield() }
            if condition(), session.fetchingToken == false { return }
            try? await Task.sleep(for: .milliseconds(1))
        } while ContinuousClock.now < deadline
    }
}

@MainActor
@Suite(.serialized) struct CallSessionTests {
    @Test func startsTheEmbeddedServerFetchesThenJoins() async throws {
        let h = SessionHarness()
        try h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 }, timeout: .seconds(5))
        await h.run(for: 1)
        let names = h.names()
        #expect(names.first == "note")
        #expect(Array(names.drop { $0 == "note" }.prefix(3)) == ["tokenFetchStarted", "tokenFetched", "connectionStateChanged"])
        #expect(h.session.engine?.connectionState == .connected)
        #expect(h.first("didJoinChannel") != nil)
        h.session.stop()
        #expect(h.events.last?.kind == .sessionEnded(failed: false))
    }

    @Test func renewsOnEachWarningAndKeepsTheCallUp() async throws {
        let h = SessionHarness()
        try h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 }, timeout: .seconds(5))
        await h.run(for: 125)
        #expect(h.count("tokenPrivilegeWillExpire") >= 10)
        #expect(h.count("tokenRenewed") == h.count("tokenPrivilegeWillExpire"))
        #expect(h.count("requestToken") == 0)
        let warned = try #require(h.first("tokenPrivilegeWillExpire"))
        #expect(warned.time >= .seconds(10) && warned.time < .seconds(11), "40 s tokens warn about 10 s in")
        #expect(h.events.contains { $0.kind == .tokenRenewed(method: .renew) })
        #expect(h.session.engine?.connectionState == .connected)
    }

    @Test func tokensShorterThanTheWarningAreRenewedHalfwayNotInALoop() async throws {
        let h = SessionHarness { $0.tokenLifetime = 5 }
        try h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 }, timeout: .seconds(5))
        await h.run(for: 30)
        // A 5 s token warns as soon as it is taken; renewed halfway, that is a fetch every 2.5 s or so.
        #expect((8...16).contains(h.count("tokenFetchStarted")), "\(h.count("tokenFetchStarted")) fetches in 30 s")
        #expect(h.count("requestToken") == 0)
        #expect(h.session.engine?.connectionState == .connected)
    }

    @Test func addingUsersStopsAtTheLimitAndSaysSo() async throws {
        let h = SessionHarness { $0.remoteUsers = AgoraRtcEngineKit.remoteUserLimit - 1 }
        try h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 }, timeout: .seconds(5))
        await h.run(for: 1)
        h.session.addRemoteUser()
        h.session.addRemoteUser()
        #expect(h.session.engine?.simulatedRemoteUserCount == AgoraRtcEngineKit.remoteUserLimit)
        #expect(h.events.contains { $0.kind == .note("+: the channel already has 16 remote users, the most it simulates") })
    }

    @Test(arguments: RenewMethod.allCases)
    func eachRenewMethodLandsBeforeExpiry(method: RenewMethod) async throws {
        let h = SessionHarness { $0.renewMethod = method; $0.remoteUsers = 1 }
        try h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 }, timeout: .seconds(5))
        await h.run(for: 45)
        #expect(h.events.contains { $0.kind == .tokenRenewed(method: method) })
        #expect(h.count("requestToken") == 0)
        #expect(h.session.engine?.connectionState == .connected)
        if method == .rejoin {
            #expect(h.count("didLeaveChannel") >= 1)
        } else {
            #expect(h.count("didLeaveChannel") == 0)
        }
    }

    @Test func withoutAutoRenewTheTokenExpiresAndAManualRenewalRecovers() async throws {
        let h = SessionHarness { $0.autoRenew = false }
        try h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 }, timeout: .seconds(5))
        await h.run(for: 41)
        #expect(h.count("tokenPrivilegeWillExpire") == 1)
        #expect(h.count("requestToken") == 1)
        #expect(h.session.engine?.connectionState == .failed)
        h.session.renewNow()
        await h.settle(until: { h.count("tokenRenewed") == 1 }, timeout: .seconds(5))
        await h.run(for: 1)
        #expect(h.session.engine?.connectionState == .connected)
        h.session.stop()
        #expect(h.events.last?.kind == .sessionEnded(failed: false))
    }
}
