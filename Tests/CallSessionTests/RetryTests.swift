import AccessToken
import Foundation
import HTTP1
import Synchronization
import TestSupport
import Testing
import TokenClient
@testable import CallSession


/// A token server inside the process: answers, hangs until cancelled, or refuses, as a test sets it.
final class ScriptedTransport: HTTPTransport {
    enum Mode: Sendable { case answer, hang, unauthorized }

    let mode: Mutex<Mode> = Mutex(.answer)
    let calls = Mutex(0)
    /// Requests held unanswered now.
    let hanging = Mutex(0)
    let unixTime: @Sendable () -> Double

    init(unixTime: @escaping @Sendable () -> Double) { self.unixTime = unixTime }

    func send(_ request: HTTPRequest, bodyLimit: Int) async throws -> (reply: HTTPReply, url: URL) {
        let call = calls.withLock { count -> Int in
            count += 1
            return count
        }
        let status: Int
        var body = ""
        switch mode.withLock({ $0 }) {
        case .hang:
            hanging.withLock { $0 += 1 }
            defer { hanging.withLock { $0 -= 1 } }
            try await Task.sleep(for: .seconds(3600))
            throw CancellationError()
        case .unauthorized:
            status = 401
        case .answer:
            status = 200
            let token = try serverToken(issuedAt: UInt32(unixTime()), salt: UInt32(call))
            body = #"{"token": "\#(token)"}"#
        }
        return (HTTPReply(status: status, fields: [("Content-Type", "application/json")], body: Array(body.utf8)), request.url!)
    }
}

@MainActor
@Suite(.serialized) struct RetryTests {
    /// A session on a scripted transport that starts in `mode`.
    private func harness(_ mode: ScriptedTransport.Mode = .answer, timeout: Duration = .seconds(10))
        -> (SessionHarness, ScriptedTransport) {
        let clock = SessionHarness.makeClock()
        let transport = ScriptedTransport(unixTime: { clock.unixTime })
        transport.mode.withLock { $0 = mode }
        let h = SessionHarness(clock: clock, source: .http(URL(string: "http://127.0.0.1:9")!, clock: clock, transport: transport)) { config in
            config.appID = TestCredentials.appID
            config.appCertificate = TestCredentials.certificate
            config.requestTimeout = timeout
        }
        h.fetchWaitsForTheClock = { transport.hanging.withLock { $0 } > 0 }
        return (h, transport)
    }

    private func fetchStarts(_ h: SessionHarness, after time: Duration) -> [String] {
        h.events.compactMap { event in
            if case .tokenFetchStarted(let reason) = event.kind, event.time > time { reason } else { nil }
        }
    }

    /// The renewal fetch started at the warning is still hanging when the token runs out; when it fails, the retry
    /// it announces must come, now to recover the expired call, until the server answers again.
    @Test func aRenewalFailingAcrossExpiryKeepsRetryingAndRecovers() async throws {
        let (h, transport) = harness(timeout: .seconds(35))
        h.session.start()
        await h.run(for: 5)
        #expect(h.session.engine?.connectionState == .connected)
        transport.mode.withLock { $0 = .hang }
        await h.run(for: 35, step: 5)
        await h.run(for: 2, step: 1)
        #expect(h.count("requestToken") == 1, "the token ran out while its renewal hung")
        #expect(h.session.fetchingToken)
        await h.run(for: 3.25)
        let failure = try #require(h.events.last { if case .tokenFetchFailed = $0.kind { true } else { false } })
        guard case .tokenFetchFailed(_, let retryIn) = failure.kind else { Issue.record("not a failure"); return }
        let announced = try #require(retryIn)
        transport.mode.withLock { $0 = .answer }
        await h.run(for: 1 + Double(announced / .milliseconds(1)) / 1000)
        #expect(fetchStarts(h, after: failure.time) == ["requestToken"], "the announced retry came, to recover")
        #expect(h.session.engine?.connectionState == .connected)
        #expect(h.count("tokenRenewed") >= 1)
    }

    @Test func everyAnnouncedRetryComesWhileTheServerStaysDown() async throws {
        let (h, transport) = harness(timeout: .seconds(3))
        h.session.start()
        await h.run(for: 5)
        transport.mode.withLock { $0 = .hang }
        await h.run(for: 120, step: 1)
        let failures = h.events.filter { if case .tokenFetchFailed = $0.kind { true } else { false } }
        #expect(failures.count >= 4)
        for failure in failures.dropLast() {
            guard case .tokenFetchFailed(_, let retryIn?) = failure.kind else { Issue.record("no retry announced"); continue }
            // The announced retry, or an earlier fetch that took its place (requestToken at the token's end).
            let due = failure.time + retryIn
            let next = h.events.first { $0.name == "tokenFetchStarted" && $0.time >= failure.time }
            #expect(next.map { $0.time <= due } == true, "a retry announced at \(failure.time) for \(due) came")
        }
    }

    @Test func anAnswerSlowerThanTheDeadlineTimesOutAndIsRetried() async throws {
        let (h, transport) = harness(.hang, timeout: .seconds(2))
        h.session.start()
        await h.run(for: 2.5)
        let failures = h.events.compactMap { if case .tokenFetchFailed(let error, _) = $0.kind { error } else { nil } }
        #expect(failures == ["the token server did not answer within 2 s"])
        transport.mode.withLock { $0 = .answer }
        await h.run(for: 10)
        #expect(h.session.engine?.connectionState == .connected)
    }

    @Test func aRefusedCredentialIsStuckAndEndsFailed() async throws {
        let (h, transport) = harness(.unauthorized)
        h.session.start()
        await h.run(for: 60)
        #expect(transport.calls.withLock { $0 } == 1, "a refused credential is not retried")
        #expect(h.events.contains { if case .stuck = $0.kind { true } else { false } })
        await h.stop()
        #expect(h.events.last?.kind == .sessionEnded(failed: true))
    }
}
