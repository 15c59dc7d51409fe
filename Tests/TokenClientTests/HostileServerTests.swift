import Foundation
import Glibc
import TestSupport
import Testing
@testable import TokenClient

/// What a token server can do to the client, on a real socket: each test names what a user would notice. One at a time:
/// the flood's cut-off is measured in bytes, which other tests' processes would inflate.
@Suite(.serialized) struct HostileServerTests {
    static let deadline = Duration.seconds(1)

    static let transport = LoopHTTPTransport(limit: LoopHTTPTransportTests.transportLimit)

    enum Stall: String, CaseIterable, Sendable {
        case silent, dripsTheHead, dripsTheBody
    }

    /// At 16 MB/s, as a server across a network sends: at loopback speed FoundationNetworking can take seconds to act
    /// on the cancel (the bytes are dropped meanwhile), which this test would measure instead.
    @Test
    func anEndlessAnswerIsCutOffAtTheLimitAndTheConnectionClosed() async throws {
        let total = 64 << 20
        let server = try HostileServer { connection in
            guard connection.write(head("200 OK", ["Content-Type: application/json"])) else { return }
            let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 16 * 1024)
            for _ in 0..<total / chunk.count {
                guard connection.write(chunk) else { return }
                usleep(1000)
            }
        }
        defer { server.stop() }
        #expect(await failure(HTTPTokenProvider(url: server.url, transport: Self.transport))
            == .answerTooLong(bytes: nil, limit: HTTPTokenProvider.bodyLimit))
        #expect(await eventually { server.clientClosed }, "the client hung up instead of reading on")
        #expect(server.bytesSent < 4 << 20, "the server's count includes the kernel's socket buffers")
    }

    @Test
    func anAnnouncedOversizedAnswerIsRefusedAtItsHead() async throws {
        let announced = head("200 OK", ["Content-Type: application/json", "Content-Length: 100000000"])
        let server = try HostileServer { connection in
            guard connection.write(announced) else { return }
            connection.waitForClose(upTo: .seconds(30))
        }
        defer { server.stop() }
        #expect(await failure(HTTPTokenProvider(url: server.url, transport: Self.transport))
            == .answerTooLong(bytes: 100_000_000, limit: HTTPTokenProvider.bodyLimit))
        #expect(await eventually { server.clientClosed }, "the client hung up while the server still held the body back")
        #expect(server.bytesSent == announced.utf8.count)
    }

    /// The cache's deadline is on a manual clock, so the test does not depend on how busy the machine is: what it
    /// checks is that the deadline ends the exchange whatever the server does, and that the connection is dropped.
    @Test(arguments: Stall.allCases)
    func theDeadlineBoundsTheWholeExchange(stall: Stall) async throws {
        let server = try HostileServer { connection in
            switch stall {
            case .silent:
                connection.waitForClose(upTo: .seconds(30))
            case .dripsTheHead:
                guard connection.write("HTTP/1.1 200 OK\r\nX-Slow: ") else { return }
                drip(connection)
            case .dripsTheBody:
                guard connection.write(head("200 OK", ["Content-Type: application/json"]) + "{\"token\": \"") else { return }
                drip(connection)
            }
        }
        defer { server.stop() }
        let clock = ManualClock()
        var policy = TokenCache.Policy()
        policy.deadline = Self.deadline
        let cache = TokenCache(provider: HTTPTokenProvider(url: server.url, transport: Self.transport), request: request, policy: policy,
                               clock: clock, unixTime: { clock.unixTime })
        let waiting = Task { try await cache.token() }
        #expect(await eventually { server.requests.count == 1 })
        await clock.waitForSleepers()
        await clock.advance(by: Self.deadline)
        await #expect(throws: TokenClientError.timeout(Self.deadline)) { try await waiting.value }
        #expect(await eventually { server.clientClosed }, "the request is cancelled, not left running")
    }

    @Test
    func aRedirectToAnotherOriginIsRefusedAndTheCredentialStaysHome() async throws {
        let elsewhere = try HostileServer { $0.write(tokenAnswer()) }
        defer { elsewhere.stop() }
        let target = "http://127.0.0.1:\(elsewhere.port)"
        let server = try HostileServer { connection in
            connection.write(head("307 Temporary Redirect", ["Location: \(target)/fetch_rtc_token?key=hunter2", "Content-Length: 0"]))
        }
        defer { server.stop() }
        let error = try #require(await failure(HTTPTokenProvider(url: server.url, bearer: "user-cred", transport: Self.transport)))
        #expect(!elsewhere.requests.contains { $0.lowercased().contains("authorization") })
        #expect(elsewhere.requests.isEmpty, "not followed at all")
        guard case .redirected = error else {
            Issue.record("expected a refused redirect, got \(error)")
            return
        }
        #expect(error.description.contains("to another origin, \(target); tokencall sends requests, and the --auth-bearer credential, only to"))
        #expect(error.description.contains("point the token server's URL at the final endpoint"))
        #expect(!error.description.contains("hunter2") && !error.description.contains("user-cred"))
        // Without a credential none is named: doctor and a join without --auth-bearer send none.
        let plain = try #require(await failure(HTTPTokenProvider(url: server.url, transport: Self.transport)))
        #expect(plain.description.contains("tokencall sends requests only to the token server's own origin"), "\(plain)")
        #expect(!plain.description.contains("--auth-bearer") && !plain.description.contains("--token-url"))
    }

    @Test
    func aSameOriginRedirectIsFollowedWithTheCredentialAndBodyAndReported() async throws {
        let server = try HostileServer { connection in
            if connection.index == 0 {
                connection.write(head("307 Temporary Redirect", ["Location: /v2/fetch_rtc_token", "Content-Length: 0"]))
            } else {
                connection.write(tokenAnswer())
            }
        }
        defer { server.stop() }
        let fetched = try await HTTPTokenProvider(url: server.url, bearer: "user-cred", transport: Self.transport).fetchToken(for: request)
        #expect(fetched.redirectedTo == "/v2/fetch_rtc_token")
        let second = try #require(server.requests.dropFirst().first)
        #expect(second.hasPrefix("POST /v2/fetch_rtc_token "))
        #expect(second.contains("Authorization: Bearer user-cred"))
        #expect(second.contains(#""channelName":"test""#))
    }

    @Test
    func aRedirectLoopIsRefusedAfterAFewHops() async throws {
        let server = try HostileServer { connection in
            connection.write(head("302 Found", ["Location: /fetch_rtc_token", "Content-Length: 0"]))
        }
        defer { server.stop() }
        #expect(await failure(HTTPTokenProvider(url: server.url, transport: Self.transport))
            == .redirected("more than 3 redirects (a redirect loop?)"))
        #expect(server.requests.count == Redirects.limit + 1)
    }

    @Test
    func anAnswerCutShortSaysSo() async throws {
        let server = try HostileServer { connection in
            connection.write(head("200 OK", ["Content-Type: application/json", "Content-Length: 1000"]) + "{\"tok")
        }
        defer { server.stop() }
        let error = try #require(await failure(HTTPTokenProvider(url: server.url, transport: Self.transport)))
        #expect(error.description.hasPrefix("cannot reach the token server: the connection closed before the whole answer"), "\(error)")
    }

    /// As nginx's `auth_basic` answers in front of a token server: FoundationNetworking used to hold such a 401 back for
    /// ever, and the user saw a timeout instead of a refused credential.
    @Test(arguments: [#"Basic realm="tokens""#, #"Digest realm="tokens", nonce="1""#, "Bearer"])
    func a401WithAChallengeSaysTheCredentialWasRefused(challenge: String) async throws {
        let server = try HostileServer { connection in
            connection.write(head("401 Unauthorized", ["WWW-Authenticate: \(challenge)", "Content-Length: 2"]) + "{}")
        }
        defer { server.stop() }
        let fetch = Task { await failure(HTTPTokenProvider(url: server.url, bearer: "user-cred", transport: Self.transport)) }
        let bound = Task {
            try await Task.sleep(for: .seconds(30))
            fetch.cancel()
        }
        defer { bound.cancel() }
        #expect(await fetch.value == .unauthorized(status: 401, message: nil, sent: .bearer))
    }

    @Test
    func aRetryAfterBeyondTheCapSaysItIsCapped() async throws {
        let server = try HostileServer { connection in
            connection.write(head("429 Too Many Requests", ["Retry-After: 999999", "Content-Length: 2"]) + "{}")
        }
        defer { server.stop() }
        let clock = ManualClock()
        let cache = TokenCache(provider: HTTPTokenProvider(url: server.url, transport: Self.transport), request: request, clock: clock,
                               unixTime: { clock.unixTime })
        await #expect {
            try await cache.token()
        } throws: { error in
            "\(error)" == "the token server is busy (HTTP 429); it asked for 999999 s; retrying in 3600 s, the most tokencall waits"
        }
        #expect(await cache.retryDelay() == .seconds(3600))
    }
}

/// Writes a byte every 50 ms until the client hangs up, for thirty seconds at most, and then resets the connection:
/// a client still listening after a head cut by a clean close would crash this test process (FoundationNetworking #5285).
private func drip(_ connection: HostileServer.Connection) {
    let end = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < end, connection.write("a") { usleep(50_000) }
    connection.reset()
}

/// A whole, valid answer for `request`.
private func tokenAnswer() -> String {
    let body = #"{"token": "\#(realToken(issuedAt: UInt32(Date().timeIntervalSince1970)))"}"#
    return head("200 OK", ["Content-Type: application/json", "Content-Length: \(body.utf8.count)"]) + body
}

private func failure(_ provider: HTTPTokenProvider) async -> TokenClientError? {
    do {
        _ = try await provider.fetchToken(for: request)
        return nil
    } catch {
        return error as? TokenClientError
    }
}

/// Whether `condition` holds within twenty seconds (generous: a busy test run can stall for seconds).
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<2000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return false
}
