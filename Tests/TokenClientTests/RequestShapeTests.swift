import AccessToken
import Foundation
import JSON
import TestSupport
import Testing
import TokenServer
@testable import TokenClient

private let now = 1_800_000_000.0

/// A server on 127.0.0.1 that records each request and answers every one with `body` (HTTP `status`).
private func recorder(_ status: String = "200 OK", type: String = "application/json", body: String) throws -> HostileServer {
    try HostileServer { connection in
        connection.write(head(status, ["Content-Type: \(type)", "Content-Length: \(body.utf8.count)"]) + body)
    }
}

private func shape(_ text: String, token: String? = nil, expires: String? = nil) throws -> HTTPTokenProvider.Shape {
    var shape = try HTTPTokenProvider.Shape(parsing: text)
    shape.tokenField = try token.map(FieldPath.init(parsing:))
    shape.expiresField = try expires.map(FieldPath.init(parsing:))
    return shape
}

private func fetch(_ shape: HTTPTokenProvider.Shape, from server: HostileServer, path: String = "",
                   _ asked: TokenRequest = request) async -> Result<FetchedToken, TokenClientError> {
    let provider = HTTPTokenProvider(url: URL(string: server.url.absoluteString + path)!, shape: shape, requestedLifetime: 600,
                                     bearer: "cred", unixTime: { now })
    do {
        return .success(try await provider.fetchToken(for: asked))
    } catch {
        return .failure(error as! TokenClientError)
    }
}

/// The request line and the body of what `server` received first.
private func received(_ server: HostileServer) throws -> (line: String, body: String) {
    let text = try #require(server.requests.first)
    let parts = text.components(separatedBy: "\r\n\r\n")
    return (parts[0].components(separatedBy: "\r\n")[0], parts.dropFirst().joined(separator: "\r\n\r\n"))
}

@Suite struct RequestShapeTests {
    @Test func aTemplateSendsEachValueEscapedForWhereItStands() async throws {
        let server = try recorder("400 Bad Request", body: #"{"error": "no"}"#)
        defer { server.stop() }
        let asked = TokenRequest(channel: #"a&b/"c" ü"#, user: .account("Jo Ann/.."), role: .subscriber)
        let template = try shape(#"POST /api/{channel}/{user}?c={channel}&u={user}&r={role} {"c":"{channel}","u":"{user}","r":{role},"e":{expire}}"#)
        _ = await fetch(template, from: server, path: "/base/", asked)
        let (line, body) = try received(server)
        #expect(line == "POST /base/api/a%26b%2F%22c%22%20%C3%BC/Jo%20Ann%2F%2E%2E?c=a%26b%2F%22c%22+%C3%BC&u=Jo+Ann%2F..&r=2 HTTP/1.1")
        #expect(body == #"{"c":"a&b/\"c\" ü","u":"Jo Ann/..","r":2,"e":600}"#)
        #expect(server.requests.first?.contains("Authorization: Bearer cred") == true)
        #expect(server.requests.first?.contains("Content-Type: application/json") == true)
    }

    @Test func aUidTemplateIsNotSentForAnAccount() async throws {
        let server = try recorder(body: "{}")
        defer { server.stop() }
        let result = await fetch(try shape("GET /t?uid={uid}"), from: server, TokenRequest(channel: "test", user: .account("ann")))
        #expect(result.failure == .unsendable("the request sends {uid}, a number, but this join uses a user account; use {user} or {account} in a template, or --token-request getToken"))
        #expect(result.failure?.isRetryable == false)
        #expect(server.requests.isEmpty)
    }

    /// The paths and bodies of the servers users run, as their sources read them.
    @Test(arguments: [
        ("fetch", "", "POST /fetch_rtc_token HTTP/1.1", #"{"uid":42,"channelName":"test","role":1}"#),
        ("fetch", "/my/endpoint", "POST /my/endpoint HTTP/1.1", #"{"uid":42,"channelName":"test","role":1}"#),
        ("getToken", "", "POST /getToken HTTP/1.1", #"{"tokenType":"rtc","channel":"test","role":"publisher","uid":"42"}"#),
        ("rtc-path", "/svc", "GET /svc/rtc/test/publisher/uid/42/ HTTP/1.1", ""),
        ("agora-token-service", "", "POST /getToken HTTP/1.1",
         #"{"tokenType":"rtc","channel":"test","role":"publisher","uid":"42","expire":600}"#),
        ("Agora-Node-TokenServer", "", "GET /rtc/test/publisher/uid/42?expiry=600 HTTP/1.1", ""),
    ])
    func eachNamedShapeAsksWhereItsServerListens(name: String, path: String, line: String, body: String) async throws {
        let server = try recorder(body: #"{"rtcToken": "\#(realToken(issuedAt: UInt32(now)))"}"#)
        defer { server.stop() }
        let result = await fetch(try shape(name), from: server, path: path)
        #expect(result.failure == nil, "\(String(describing: result.failure))")
        let sent = try received(server)
        #expect(sent.line == line)
        #expect(sent.body == body)
    }

    @Test func theNodeServersAudienceAndAccountWords() async throws {
        let server = try recorder(body: "{}")
        defer { server.stop() }
        _ = await fetch(try shape("agora-node-tokenserver"), from: server, TokenRequest(channel: "test", user: .account("ann"), role: .subscriber))
        #expect(try received(server).line == "GET /rtc/test/audience/userAccount/ann?expiry=600 HTTP/1.1")
    }

    @Test(arguments: ["fetch", "getToken", "rtc-path", "agora-token-service", "agora-node-tokenserver",
                      #"POST /getToken {"tokenType":"rtc","channel":"{channel}","uid":"{user}","role":{role},"expire":{expire}}"#])
    func eachShapeGetsATokenFromTokencallsOwnServer(text: String) async throws {
        // Lifetimes far longer than a test may wait for a thread of the cooperative pool beside a full run's blocking
        // tests (two minutes were seen): a token must not end between its answer and its check.
        let server = try TokenServer(TokenServerConfig(port: 0, appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                                       tokenLifetime: 7200))
        defer { server.stop() }
        for role in RTCRole.allCases {
            let provider = HTTPTokenProvider(url: server.url, shape: try shape(text), requestedLifetime: 3600)
            let fetched = try await provider.fetchToken(for: TokenRequest(channel: "test", user: .uid(42), role: role))
            let token = try AccessToken2(parsing: fetched.token)
            #expect(token.rtc?.uid == "42")
            #expect(token.hasValidSignature(appCertificate: TestCredentials.certificate))
            let lifetime: UInt32 = try shape(text).asksForLifetime ? 3600 : 7200
            #expect(token.expire == lifetime, "\(text) asks for {expire} = 3600 s; the others get the server's 7200 s")
        }
    }

    @Test(arguments: [
        (#"{"data": {"token": "T"}}"#, "data.token"),
        (#"{"tokens": ["T"]}"#, "tokens.0"),
        (#"{"rtcToken": "T", "token": "other"}"#, "rtcToken"),
    ])
    func theTokenFieldPicksTheToken(body: String, path: String) async throws {
        let token = realToken(issuedAt: UInt32(now))
        let server = try recorder(body: body.replacingOccurrences(of: #""T""#, with: "\"\(token)\""))
        defer { server.stop() }
        #expect(try await fetch(try shape("fetch", token: path), from: server).get().token == token)
    }

    /// Agora's Python sample and others answer the token alone as `text/html`: a 2xx body that is one token (white
    /// space at either end) is that token, whatever its type, with or without a --token-field.
    @Test(arguments: ["text/html; charset=utf-8", "text/plain", "application/json"])
    func aBodyThatIsTheTokenAloneIsTheToken(type: String) async throws {
        let token = realToken(issuedAt: UInt32(now))
        let legacy = Legacy006.token(channel: "test", uid: "42", messageExpiresAt: UInt32(now) + 86_400, privilegesExpireAt: UInt32(now) + 3600)
        for (sent, body) in [(token, token + "\n"), (token, " \r\n\t" + token + "\r\n"), (legacy, legacy)] {
            let server = try recorder(type: type, body: body)
            defer { server.stop() }
            for field in [nil, ".", "data.token"] {
                #expect(try await fetch(try shape("GET /v1/token?channel_name={channel}", token: field), from: server).get().token == sent)
            }
        }
    }

    /// `--token-field .` reads the whole answer as the token, so a JSON answer is not one.
    @Test func theWholeAnswerAsTheFieldTakesOnlyATokenAlone() async throws {
        let server = try recorder(body: #"{"token": "007eJx"}"#)
        defer { server.stop() }
        #expect(await fetch(try shape("fetch", token: "."), from: server).failure
            == .invalidResponse("it is not a token alone (006… or 007…), which --token-field . reads; name the token's JSON field instead"))
    }

    @Test func aMissingTokenFieldNamesWhereItLooked() async throws {
        let server = try recorder(body: #"{"data": {"rtcToken": "x"}}"#)
        defer { server.stop() }
        let result = await fetch(try shape("fetch", token: "data.token"), from: server)
        #expect(result.failure == .invalidResponse(#"data has no "token" member (--token-field data.token)"#))
        let unnamed = await fetch(try shape("fetch"), from: server)
        #expect(unnamed.failure == .invalidResponse(#"it has no "token" (or "rtcToken") field; name the token's field with --token-field"#))
    }

    @Test(arguments: [
        (120, Int64(now) + 120),
        (Int64(now) + 300, Int64(now) + 300),
        (9_223_372_036_854_775_807, Int64(now) + 3600),
    ] as [(Int64, Int64)])
    func theExpiresFieldIsALifetimeOrAUnixTime(value: Int64, expiresAt: Int64) async throws {
        let server = try recorder(body: #"{"token": "\#(realToken(lifetime: 3600, issuedAt: UInt32(now)))", "meta": {"exp": \#(value)}}"#)
        defer { server.stop() }
        #expect(try await fetch(try shape("fetch", expires: "meta.exp"), from: server).get().expiresAt == expiresAt)
    }

    @Test(arguments: [
        ("\(Int64(now) - 30)", TokenClientError.expired(secondsAgo: 30)),
        ("0", .invalidResponse("meta.exp must be a positive whole number (seconds, or a unix time), not 0")),
        ("-1", .invalidResponse("meta.exp must be a positive whole number (seconds, or a unix time), not -1")),
        ("1e300", .invalidResponse("meta.exp must be a positive whole number (seconds, or a unix time), not 1e300")),
        ("99999999999999999999", .invalidResponse("meta.exp must be a positive whole number (seconds, or a unix time), not 99999999999999999999")),
        (#""600""#, .invalidResponse("meta.exp must be a positive whole number (seconds, or a unix time), not a string")),
        ("{}", .invalidResponse("meta.exp must be a positive whole number (seconds, or a unix time), not an object")),
    ])
    func hostileExpiryValuesAreRefused(value: String, error: TokenClientError) async throws {
        let server = try recorder(body: #"{"token": "\#(realToken(issuedAt: UInt32(now)))", "meta": {"exp": \#(value)}}"#)
        defer { server.stop() }
        #expect(await fetch(try shape("fetch", expires: "meta.exp"), from: server).failure == error)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
