import AccessToken
import Dispatch
import Foundation
import HTTP1
import Synchronization
import TestSupport
@testable import TokenClient

let request = TokenRequest(channel: "test", user: .uid(42), role: .publisher, appID: TestCredentials.appID)

/// A real token for `request`, issued at `issuedAt` and lasting `lifetime` seconds.
func realToken(lifetime: UInt32 = 3600, issuedAt: UInt32 = 1_800_000_000, channel: String = "test", uid: UInt32 = 42,
               salt: UInt32 = 1) -> String {
    try! AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, channel: channel, user: .uid(uid), role: .publisher,
                               tokenExpire: lifetime, privilegeExpire: lifetime, issuedAt: issuedAt, salt: salt)
}

/// A provider whose answers a test scripts: each call takes the next step (the last repeats).
final class StubProvider: TokenProvider, Sendable {
    enum Step: Sendable {
        case token(lifetime: UInt32)
        case fail(TokenClientError)
        /// Never answers until cancelled.
        case hang
        /// Answers a token once `seconds` have passed on the test's clock, whether cancelled or not.
        case deaf(seconds: Int64)
    }

    private let steps: Mutex<[Step]>
    private let calls = Mutex(0)
    private let clock: ManualClock

    init(_ steps: [Step], clock: ManualClock) {
        self.steps = Mutex(steps)
        self.clock = clock
    }

    var callCount: Int { calls.withLock { $0 } }

    func fetchToken(for request: TokenRequest) async throws -> FetchedToken {
        let call = calls.withLock { count -> Int in
            count += 1
            return count
        }
        let step = steps.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] }
        switch step {
        case .token(let lifetime):
            let issued = UInt32(clock.unixTime)
            return FetchedToken(token: realToken(lifetime: lifetime, issuedAt: issued, salt: UInt32(call)),
                                expiresAt: Int64(issued) + Int64(lifetime))
        case .fail(let error):
            throw error
        case .hang:
            try await Task.sleep(for: .seconds(3600))
            throw CancellationError()
        case .deaf(let seconds):
            // A task of its own, which the fetch's cancellation does not reach.
            try? await Task { [clock] in try await clock.sleep(for: .seconds(seconds)) }.value
            return FetchedToken(token: realToken(issuedAt: UInt32(clock.unixTime)), expiresAt: Int64(clock.unixTime) + 3600)
        }
    }
}

func makeCache(_ steps: [StubProvider.Step], margin: Duration = .seconds(60)) -> (TokenCache, StubProvider, ManualClock) {
    let clock = ManualClock()
    let provider = StubProvider(steps, clock: clock)
    var policy = TokenCache.Policy()
    policy.refreshMargin = margin
    policy.jitter = { 1 }
    let cache = TokenCache(provider: provider, request: request, policy: policy, clock: clock, unixTime: { clock.unixTime })
    return (cache, provider, clock)
}

/// A transport that answers every request with the same status, headers and body.
struct StubTransport: HTTPTransport {
    let status: Int
    var headers: HTTPFields = [("Content-Type", "application/json")]
    let body: String

    func send(_ request: HTTPRequest, bodyLimit: Int) async throws -> (reply: HTTPReply, url: URL) {
        (HTTPReply(status: status, fields: headers, body: Array(body.utf8)), request.url!)
    }
}
