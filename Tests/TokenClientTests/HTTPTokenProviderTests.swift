import AccessToken
import Foundation
import HTTP1
import TestSupport
import Testing
import TokenServer
@testable import TokenClient

private let base = URL(string: "http://127.0.0.1:9")!
private let now = 1_800_000_000.0

private func provider(_ status: Int, _ body: String, headers: HTTPFields = [("Content-Type", "application/json")],
                      shape: HTTPTokenProvider.Shape = .fetch) -> HTTPTokenProvider {
    HTTPTokenProvider(url: base, shape: shape, transport: StubTransport(status: status, headers: headers, body: body),
                      unixTime: { now })
}

private func failure(_ provider: HTTPTokenProvider, for asked: TokenRequest = request) async -> TokenClientError? {
    do {
        _ = try await provider.fetchToken(for: asked)
        return nil
    } catch {
        return error as? TokenClientError
    }
}

@Suite struct HTTPTokenProviderTests {
    @Test func readsEachAnswerShapeAndLearnsTheExpiryFromTheToken() async throws {
        let token = realToken(lifetime: 600, issuedAt: UInt32(now))
        for body in [#"{"token": "\#(token)"}"#, #"{"token": "\#(token)", "expiresIn": 600}"#, #"{"rtcToken": "\#(token)"}"#] {
            let fetched = try await provider(200, body).fetchToken(for: request)
            #expect(fetched.token == token)
            #expect(fetched.expiresAt == Int64(now) + 600)
        }
        let capped = try await provider(200, #"{"token": "\#(token)", "expiresIn": 60}"#).fetchToken(for: request)
        #expect(capped.expiresAt == Int64(now) + 60, "the shorter of expiresIn and the token's own expiry")
    }

    @Test(arguments: [
        (#"{"token": "T", "expiresIn": 0}"#, "expiresIn must be a positive whole number"),
        (#"{"token": "T", "expiresIn": -5}"#, "expiresIn must be a positive whole number"),
        (#"{"token": "T", "expiresIn": "3600"}"#, "expiresIn must be a positive whole number"),
        (#"{"token": "T", "expiresIn": 1.5}"#, "expiresIn must be a positive whole number"),
        ("{not json", "not a JSON object"),
        ("<html><body>Login</body></html>", "HTML, not JSON"),
        (#"{"token": ""}"#, "token is empty"),
        (#"{"token": "Bearer T"}"#, "starts with \"Bearer \""),
        (#"{"token": "T\r\n"}"#, "whitespace or line breaks"),
        // Read as bytes when ASCII, as characters otherwise: the same answers either way.
        (" \r\n\t<!doctype html><p>Login", "HTML, not JSON"),
        ("\u{2003}<html>Login</html>", "HTML, not JSON"),
        (#"{"token": "bEaReR T"}"#, "starts with \"Bearer \""),
        (#"{"token": "T\u00a0"}"#, "whitespace or line breaks"),
        (#"{"token": "T\u2028"}"#, "whitespace or line breaks"),
        (#"{"token": "Tù"}"#, "not an Agora token"),
        (#"{"token": 42}"#, "not a string"),
        (#"{"access_token": "T"}"#, "no \"token\""),
        (#"{"token": "007notatoken"}"#, "not an Agora token"),
    ])
    func unusableAnswersAreDistinctClearErrors(body: String, words: String) async throws {
        let body = body.replacingOccurrences(of: "\"T", with: "\"" + realToken(issuedAt: UInt32(now)))
        let error = try #require(await failure(provider(200, body)))
        guard case .invalidResponse(let message) = error else {
            Issue.record("expected invalidResponse, got \(error)")
            return
        }
        #expect(message.contains(words), "\(message)")
        #expect(!error.description.contains(realToken(issuedAt: UInt32(now))))
    }

    @Test func aBodyOverTheCapIsRefused() async throws {
        let huge = #"{"token": ""# + String(repeating: "a", count: 70_000) + #""}"#
        #expect(await failure(provider(200, huge)) == .answerTooLong(bytes: 70013, limit: 65536))
    }

    @Test func aTokenForSomeoneElseIsAWrongAudienceError() async throws {
        for token in [realToken(issuedAt: UInt32(now), channel: "other"), realToken(issuedAt: UInt32(now), uid: 7)] {
            let error = await failure(provider(200, #"{"token": "\#(token)"}"#))
            guard case .wrongAudience? = error else {
                Issue.record("expected wrongAudience, got \(String(describing: error))")
                continue
            }
        }
        let otherApp = TokenRequest(channel: "test", user: .uid(42), appID: "0123456789abcdef0123456789abcdef")
        guard case .wrongAudience? = await failure(provider(200, #"{"token": "\#(realToken(issuedAt: UInt32(now)))"}"#), for: otherApp) else {
            Issue.record("a token for another App ID must be refused")
            return
        }
    }

    @Test func aUidTokenForAnAccountRequestSaysWhichIsWhich() async throws {
        let alice = TokenRequest(channel: "test", user: .account("alice"), appID: TestCredentials.appID)
        let error = try #require(await failure(provider(200, #"{"token": "\#(realToken(issuedAt: UInt32(now), uid: 7))"}"#, shape: .getToken),
                                                for: alice))
        #expect(error.description == "the token server sent a token for someone else: the token was built for the integer uid 7, "
                + #"but you join with the account "alice": join with joinChannel(byToken:…uid:), or build the token with buildTokenWithUserAccount"#)
    }

    @Test func anExpiredTokenIsRefused() async throws {
        let stale = realToken(lifetime: 60, issuedAt: UInt32(now) - 120)
        #expect(await failure(provider(200, #"{"token": "\#(stale)"}"#)) == .expired(secondsAgo: 60))
    }

    @Test func handingOverMistakesPassesAWrongTokenOnWithWhatIsWrongAndStillRefusesWhatIsNoToken() async throws {
        func handingOver(_ body: String) -> HTTPTokenProvider {
            HTTPTokenProvider(url: base, transport: StubTransport(status: 200, headers: [("Content-Type", "application/json")], body: body),
                              handsOverMistakes: true, unixTime: { now })
        }
        let otherUid = realToken(issuedAt: UInt32(now), uid: 7)
        let fetched = try await handingOver(#"{"token": "\#(otherUid)"}"#).fetchToken(for: request)
        #expect(fetched.token == otherUid)
        guard case .wrongAudience(let why)? = fetched.flaw else {
            Issue.record("no flaw for a token for uid 7: \(fetched)")
            return
        }
        #expect(why.contains("7"), "\(why)")
        let expired = realToken(lifetime: 60, issuedAt: UInt32(now) - 120)
        #expect(try await handingOver(#"{"token": "\#(expired)"}"#).fetchToken(for: request).flaw == .expired(secondsAgo: 60))
        #expect(try await handingOver(#"{"token": "\#(realToken(issuedAt: UInt32(now)))"}"#).fetchToken(for: request).flaw == nil)
        guard case .invalidResponse? = await failure(handingOver(#"{"token": "not-a-token"}"#)) else {
            Issue.record("what is no Agora token is refused even when mistakes are handed over")
            return
        }
    }

    @Test func statusCodesMapToTheirErrors() async throws {
        #expect(await failure(provider(401, "{}")) == .unauthorized(status: 401, message: nil, sent: []))
        #expect(await failure(provider(403, "{}")) == .unauthorized(status: 403, message: nil, sent: []))
        #expect(await failure(provider(429, "{}", headers: [("Retry-After", "7")])) == .rateLimited(status: 429, retryAfter: .seconds(7)))
        #expect(await failure(provider(503, "{}")) == .rateLimited(status: 503, retryAfter: nil))
        #expect(await failure(provider(500, #"{"error": "database down"}"#)) == .server(status: 500, message: "database down"))
        #expect(await failure(provider(404, "<html>")) == .server(status: 404, message: nil))
    }

    /// A refusal says what the status and the server's words say (escaped, bounded), and names an option only when it
    /// was sent: a 403 to a request without a bearer does not blame --auth-bearer.
    @Test func aRefusalSaysWhatTheServerSaidAndNamesOnlyWhatWasSent() async throws {
        func refusal(_ status: Int, _ body: String, type: String = "application/json", bearer: String? = nil,
                     origin: String? = nil) async -> TokenClientError? {
            await failure(HTTPTokenProvider(url: base, bearer: bearer, origin: origin,
                                            transport: StubTransport(status: status, headers: [("Content-Type", type)], body: body), unixTime: { now }))
        }
        let forbidden = await refusal(403, #"{"error": "no \u001b[2J entry"}"#)
        #expect(forbidden == .unauthorized(status: 403, message: "no \u{1b}[2J entry", sent: []))
        #expect(forbidden?.description == #"the token server refused the request (HTTP 403, "no \u001b[2J entry")"#)
        #expect(await refusal(401, #"{"error": "bad credential"}"#, bearer: "s3cret")?.description
            == #"the token server refused the request (HTTP 401, "bad credential"); check --auth-bearer"#)
        #expect(await refusal(401, "")?.description == "the token server refused the request (HTTP 401); it asks for a credential, and none was sent")
        #expect(await refusal(403, "Forbidden\n", type: "text/plain")?.description == #"the token server refused the request (HTTP 403, "Forbidden")"#)
        #expect(await refusal(403, "<html><body>403</body></html>", type: "text/html") == .unauthorized(status: 403, message: nil, sent: []))
        let long = await refusal(403, #"{"error": "\#(String(repeating: "x", count: 5000))"}"#)
        #expect(long == .unauthorized(status: 403, message: String(repeating: "x", count: HTTPTokenProvider.errorTextLimit), sent: []))
        // An Origin the server does not list, with a bearer that is not at fault.
        #expect(await refusal(403, #"{"error":"Origin not allowed"}"#, bearer: "s3cret", origin: "https://app.example")?.description
            == #"the token server refused the request (HTTP 403, "Origin not allowed"); add the origin --origin gives to those it allows "#
            + "(agora-token-service: CORS_ALLOW_ORIGIN)")
    }

    /// agora-token-service with CORS_ALLOW_ORIGIN set to a list 403s every request without an Origin: said in one
    /// sentence with the server-side fix, never as a credential problem, and not retried.
    @Test func aServerThatWantsAnOriginIsRecognised() async throws {
        let refused = await failure(HTTPTokenProvider(url: base, bearer: "s3cret",
                                                      transport: StubTransport(status: 403, body: #"{"error":"Origin not allowed"}"#), unixTime: { now }))
        #expect(refused == .originRequired(message: "Origin not allowed"))
        #expect(refused?.description == #"the token server refuses every request without an Origin header (HTTP 403, "Origin not allowed"), "#
            + "as agora-token-service does when CORS_ALLOW_ORIGIN lists origins, so no native app gets a token; have it serve requests that "
            + "carry no Origin (CORS is for browsers; CORS_ALLOW_ORIGIN=* there), or send one with --origin")
        #expect(refused?.isRetryable == false)
        let sent = try HTTPTokenProvider(url: base, origin: "https://app.example").httpRequest(for: request)
        #expect(sent.header("Origin") == "https://app.example")
        #expect(try HTTPTokenProvider(url: base).httpRequest(for: request).header("Origin") == nil)
    }

    @Test func connectionRefusedIsATransportError() async throws {
        let closed = HTTPTokenProvider(url: URL(string: "http://127.0.0.1:1")!, unixTime: { now })
        #expect(await failure(closed) == .transport("connection refused"))
    }

    @Test(arguments: [HTTPTokenProvider.Shape.fetch, .getToken, .rtcPath])
    func speaksEachShapeToARealServer(shape: HTTPTokenProvider.Shape) async throws {
        // Far longer than a test may wait for a thread of the cooperative pool beside a full run's blocking tests.
        let server = try TokenServer(TokenServerConfig(port: 0, appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, tokenLifetime: 7200))
        defer { server.stop() }
        let provider = HTTPTokenProvider(url: server.url, shape: shape)
        let fetched = try await provider.fetchToken(for: request)
        let token = try AccessToken2(parsing: fetched.token)
        #expect(token.rtc?.channel == "test")
        #expect(token.rtc?.uid == "42")
        #expect(token.hasValidSignature(appCertificate: TestCredentials.certificate))
        // The provider counts `expiresIn` from when it asked (never later than the token's own end); the server may
        // issue the token in the next second, so the expiry is the token's issue time + 7200, or one second earlier.
        #expect((Int64(token.issuedAt) + 7199...Int64(token.issuedAt) + 7200).contains(fetched.expiresAt))
    }

    @Test func sendsTheBearerCredentialAndNeverCaches() async throws {
        let server = try TokenServer(TokenServerConfig(port: 0, appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, requiredBearer: "user-cred"))
        defer { server.stop() }
        let without = HTTPTokenProvider(url: server.url, shape: .rtcPath)
        #expect(await failure(without) == .unauthorized(status: 401, message: "this server needs Authorization: Bearer <credential>", sent: []))
        let with = HTTPTokenProvider(url: server.url, shape: .rtcPath, bearer: "user-cred")
        let first = try await with.fetchToken(for: request)
        let second = try await with.fetchToken(for: request)
        #expect(first.token != second.token, "a GET answer is never replayed from a URL cache")
    }
}
