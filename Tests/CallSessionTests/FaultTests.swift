import AccessToken
import Foundation
import HTTP1
import Synchronization
import TestSupport
import Testing
@testable import CallSession
@testable import TokenServer
@testable import WebServer


/// A token server that misbehaves on request, over real loopback.
final class FaultServer: Sendable {
    enum Fault: Sendable {
        case none, errorEveryOtherCall, html, otherChannel, otherUid, expired
        /// Answers from /v2/fetch_rtc_token only, redirecting there with a 307 from anywhere else.
        case moved
    }

    /// What the handler threads share.
    final class State: Sendable {
        let fault: Mutex<Fault>
        let calls = Mutex(0)
        let unixTime: @Sendable () -> Double

        init(_ fault: Fault, unixTime: @escaping @Sendable () -> Double) {
            self.fault = Mutex(fault)
            self.unixTime = unixTime
        }
    }

    let state: State
    private let server: Mutex<HTTPServer?> = Mutex(nil)
    let port: UInt16

    init(_ fault: Fault, port: UInt16 = 0, unixTime: @escaping @Sendable () -> Double) throws {
        state = State(fault, unixTime: unixTime)
        let http = try HTTPServer(host: "127.0.0.1", port: port, log: nil) { [state] in Self.answer($0, state) }
        self.port = http.port
        server.withLock { $0 = http }
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    func set(_ fault: Fault) { state.fault.withLock { $0 = fault } }

    func stop() { server.withLock { $0?.stop(); $0 = nil } }

    /// Starts again on the same port after `stop()`.
    func restart() throws {
        let http = try HTTPServer(host: "127.0.0.1", port: port, log: nil) { [state] in Self.answer($0, state) }
        server.withLock { $0 = http }
    }

    private static func answer(_ request: HTTPRequest, _ state: State) -> HTTPResponse {
        let call = state.calls.withLock { count -> Int in
            count += 1
            return count
        }
        var channel = "test", uid: UInt32 = 0, issued = UInt32(state.unixTime())
        switch state.fault.withLock({ $0 }) {
        case .none: break
        case .errorEveryOtherCall where call % 2 == 0: return .error(500, "every other call fails")
        case .errorEveryOtherCall: break
        case .html: return HTTPResponse(status: 200, body: Array("<html>sign in</html>".utf8))
        case .otherChannel: channel = "elsewhere"
        case .otherUid: uid = 4242
        case .expired: issued -= 120
        case .moved where request.path != "/v2/fetch_rtc_token":
            return HTTPResponse(status: 307, headers: [("Location", "/v2/fetch_rtc_token")])
        case .moved: break
        }
        let token = try! serverToken(channel: channel, user: .uid(uid), issuedAt: issued, salt: UInt32(call))
        return .json(200, ["token": token])
    }
}

@MainActor
@Suite(.serialized) struct SessionFaultTests {
    private func harness(url: URL, clock: ManualClock = SessionHarness.makeClock(), _ adjust: (inout CallSession.Configuration) -> Void = { _ in })
        -> SessionHarness {
        SessionHarness(clock: clock, source: .http(url, clock: clock), loopback: true, adjust)
    }

    private func failures(_ h: SessionHarness) -> [String] {
        h.events.compactMap { if case .tokenFetchFailed(let error, _) = $0.kind { error } else { nil } }
    }

    @Test func connectionRefusedAtStartKeepsRetryingAndJoinsWhenTheServerComesUp() async throws {
        let probe = try FaultServer(.none, unixTime: { 0 })
        let port = probe.port
        probe.stop()
        let h = harness(url: URL(string: "http://127.0.0.1:\(port)")!)
        h.session.start()
        await h.run(for: 8)
        #expect(failures(h).count >= 3)
        #expect(failures(h).allSatisfy { $0.contains("connection refused") })
        let retries = h.events.compactMap { if case .tokenFetchFailed(_, let retryIn) = $0.kind { retryIn } else { nil } }
        // The waits chosen at each failure (1 s, 2 s, 4 s, each drawn between half of it and all of it), however late
        // the session came to report it.
        let doubling: [ClosedRange<Duration>] = [.milliseconds(500)...(.seconds(1)), .seconds(1)...(.seconds(2)), .seconds(2)...(.seconds(4))]
        #expect(retries.count >= 3 && zip(retries, doubling).allSatisfy { $1.contains($0) }, "the backoff doubles: \(retries)")
        let clock = h.clock
        let server = try FaultServer(.none, port: port, unixTime: { clock.unixTime })
        defer { server.stop() }
        await h.run(for: 35)
        #expect(h.session.engine?.connectionState == .connected)
        #expect(h.events.contains { $0.kind == .note("App ID \(TestCredentials.appID) taken from the first token") })
    }

    @Test func aJoinRefusedForAWrongCertificateEndsTheSessionFailed() async throws {
        let clock = SessionHarness.makeClock()
        let server = try FaultServer(.none, unixTime: { clock.unixTime })
        defer { server.stop() }
        let h = harness(url: server.url, clock: clock) { config in
            config.appCertificate = String(repeating: "0", count: 32)
        }
        h.session.start()
        await h.run(for: 3)
        #expect(h.session.engine?.connectionChangedReason == .reasonInvalidToken)
        #expect(h.events.contains { if case .stuck = $0.kind { true } else { false } }, "headless ends on it")
        await h.stop()
        #expect(h.events.last?.kind == .sessionEnded(failed: true), "a call that never got in did not succeed")
    }

    @Test func aServerFailingEveryOtherCallStillRenewsInTime() async throws {
        let clock = SessionHarness.makeClock()
        let server = try FaultServer(.errorEveryOtherCall, unixTime: { clock.unixTime })
        defer { server.stop() }
        let h = harness(url: server.url, clock: clock) { config in
            config.remoteUsers = 0
        }
        h.session.start()
        await h.run(for: 200)
        #expect(failures(h).count >= 3)
        #expect(h.count("requestToken") == 0, "no renewal lost while the token was valid")
        #expect(h.count("tokenRenewed") >= 10)
        #expect(h.session.engine?.connectionState == .connected)
    }

    @Test(arguments: [
        (FaultServer.Fault.html, "HTML, not JSON"),
        (.otherChannel, "for someone else"),
        (.otherUid, "for someone else"),
        (.expired, "expired"),
    ])
    func unusableTokensNeverReachTheEngine(fault: FaultServer.Fault, words: String) async throws {
        let clock = SessionHarness.makeClock()
        let server = try FaultServer(fault, unixTime: { clock.unixTime })
        defer { server.stop() }
        let h = harness(url: server.url, clock: clock) { config in
            config.appID = TestCredentials.appID
        }
        h.session.start()
        await h.run(for: 4)
        #expect(failures(h).first?.contains(words) == true, "\(failures(h))")
        #expect(failures(h).count >= 2, "retried")
        #expect(h.count("connectionStateChanged") == 0, "the engine never saw it")
        server.set(.none)
        await h.run(for: 35)
        #expect(h.session.engine?.connectionState == .connected)
    }

    @Test func aTokenThroughASameOriginRedirectIsUsedAndTheRedirectNoted() async throws {
        let clock = SessionHarness.makeClock()
        let server = try FaultServer(.moved, unixTime: { clock.unixTime })
        defer { server.stop() }
        let h = harness(url: server.url, clock: clock)
        h.session.start()
        await h.run(for: 3)
        #expect(h.session.engine?.connectionState == .connected)
        #expect(h.events.contains { $0.kind == .note("the token server redirected the request to /v2/fetch_rtc_token on the same origin; "
                + "a token endpoint that redirects is suspicious, point --token-url at the final endpoint") })
    }

    @Test func aServerRestartedMidCallLosesNoRenewal() async throws {
        let clock = SessionHarness.makeClock()
        let server = try FaultServer(.none, unixTime: { clock.unixTime })
        defer { server.stop() }
        let h = harness(url: server.url, clock: clock)
        h.session.start()
        await h.run(for: 5)
        server.stop()
        await h.run(for: 12)
        #expect(failures(h).contains { $0.contains("connection refused") })
        try server.restart()
        await h.run(for: 60)
        #expect(h.count("requestToken") == 0)
        #expect(h.count("tokenRenewed") >= 2)
        #expect(h.session.engine?.connectionState == .connected)
    }
}
