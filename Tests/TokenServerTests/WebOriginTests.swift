import Foundation
import TestSupport
import Testing
@testable import TokenServer

/// Browsers open the hub only from the server's own pages and the origins `--cors-origin` allows; the server's
/// assets answer GET and HEAD with their own content type.
@Suite struct WebOriginTests {
    func start(cors: [String], allowedHosts: [String] = []) throws -> TokenServer {
        var config = TokenServerConfig(port: 0, appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                       corsOrigins: cors)
        config.allowedHosts = allowedHosts
        config.webSocket = WebSocketEndpoint(path: "/hub", limits: WebSocketLimits(silenceLimit: .seconds(20))) { BroadcastService() }
        config.assets["/sdk.js"] = WebAsset(contentType: "text/javascript; charset=utf-8", body: Array("window.sdk = 1;\n".utf8))
        return try TokenServer(config)
    }

    func handshake(_ port: UInt16, host: String, origin: String?) throws -> String {
        try WebSocketTestClient(port: port).handshake(
            "GET /hub HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + (origin.map { "Origin: \($0)\r\n" } ?? "") + "\r\n")
    }

    @Test func aPageOfAnotherOriginCannotOpenTheHubWhileTheServersOwnAndAllowedOnesAndNonBrowsersCan() throws {
        let server = try start(cors: ["http://app.example:3000"])
        defer { server.stop() }
        let host = "127.0.0.1:\(server.port)"
        for origin in ["http://evil.example", "null", "http://127.0.0.1:1", "http://app.example"] {
            let answer = try handshake(server.port, host: host, origin: origin)
            #expect(answer.hasPrefix("HTTP/1.1 403 Forbidden\r\n"), "\(origin): \(answer)")
            #expect(answer.contains("a page from \(origin) may not open /hub: only pages of this server and origins --cors-origin names may"))
            #expect(!answer.contains("Sec-WebSocket-Accept"))
        }
        for origin in ["http://\(host)", "https://\(host)", "http://app.example:3000", nil] {
            let answer = try handshake(server.port, host: host, origin: origin)
            #expect(answer.hasPrefix("HTTP/1.1 101 "), "\(origin ?? "no Origin"): \(answer)")
        }
    }

    /// A token request from a page at `host` (its Host, and an Origin naming it).
    func token(_ port: UInt16, host: String) throws -> RawClient.Response? {
        let client = try RawClient(port: port)
        let body = #"{"uid": 7, "channelName": "a"}"#
        client.send("POST /fetch_rtc_token HTTP/1.1\r\nHost: \(host)\r\nOrigin: http://\(host)\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        return client.readResponse()
    }

    @Test func aPageOfAnotherSiteWhoseNameLeadsHereGetsNoTokenAndCannotOpenTheHub() throws {
        let server = try start(cors: [])
        defer { server.stop() }
        for name in ["evil.example", "EVIL.example.", "localhost.evil.example", "127.0.0.1.evil.example"] {
            let host = "\(name):\(server.port)"
            let answer = try handshake(server.port, host: host, origin: "http://\(host)")
            #expect(answer.hasPrefix("HTTP/1.1 421 Misdirected Request\r\n"), "\(host): \(answer)")
            #expect(answer.contains("this server does not answer to the name \(host): a page of another site may have made its name "
                                    + "lead here (DNS rebinding); if the name is this server's, start it with --allowed-host and the name"))
            #expect(!answer.contains("Sec-WebSocket-Accept"))
            let refused = try token(server.port, host: host)
            #expect(refused?.status == 421, "\(host)")
            #expect((refused?.json?["error"] as? String)?.contains("does not answer to the name") == true, "\(host)")
            #expect(refused?.json?["token"] == nil)
        }
        for name in ["127.0.0.1", "localhost", "LocalHost.", "[::1]", "10.0.0.11"] {
            let host = "\(name):\(server.port)"
            #expect(try handshake(server.port, host: host, origin: "http://\(host)").hasPrefix("HTTP/1.1 101 "), "\(host)")
            #expect(try token(server.port, host: host)?.json?["token"] is String, "\(host)")
        }
    }

    @Test func namesTheServerIsGivenAreItsOwnAndAPageMustStillBeOfTheNameItReachedItBy() throws {
        let server = try start(cors: [], allowedHosts: ["tokens.example.com", "*.farm.example"])
        defer { server.stop() }
        for host in ["tokens.example.com", "Tokens.Example.Com:443", "hub1.farm.example:\(server.port)"] {
            #expect(try handshake(server.port, host: host, origin: "https://\(host)").hasPrefix("HTTP/1.1 101 "), "\(host)")
            #expect(try token(server.port, host: host)?.status == 200, "\(host)")
        }
        for host in ["farm.example", "a.hub1.farm.example", "tokens.example.com.evil"] {
            #expect(try token(server.port, host: host)?.status == 421, "\(host)")
        }
        let elsewhere = try handshake(server.port, host: "tokens.example.com", origin: "https://evil.example")
        #expect(elsewhere.hasPrefix("HTTP/1.1 403 Forbidden\r\n"), "\(elsewhere)")
        #expect(try token(server.port, host: "localhost:80x")?.status == 400)
    }

    @Test func anyOriginMayOpenTheHubWhenCORSAllowsEveryOne() throws {
        let server = try start(cors: ["*"])
        defer { server.stop() }
        #expect(try handshake(server.port, host: "127.0.0.1:\(server.port)", origin: "http://evil.example").hasPrefix("HTTP/1.1 101 "))
    }

    @Test func anAssetAnswersGetAndHeadWithItsContentTypeAndNothingElse() throws {
        let server = try start(cors: ["http://app.example:3000"])
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let got = try #require(client.request("GET", "/sdk.js", headers: ["Origin": "http://app.example:3000"]))
        #expect(got.status == 200)
        #expect(got.headers["content-type"] == "text/javascript; charset=utf-8")
        #expect(got.headers["x-content-type-options"] == "nosniff")
        #expect(got.headers["access-control-allow-origin"] == "http://app.example:3000")
        #expect(got.body == "window.sdk = 1;\n")
        let headClient = try RawClient(port: server.port)
        headClient.send("HEAD /sdk.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let head = try #require(headClient.readResponse(bodyless: true))
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "16")
        let post = try #require(RawClient(port: server.port).request("POST", "/sdk.js", body: "x"))
        #expect(post.status == 405)
        #expect(post.headers["allow"] == "GET, HEAD")
    }
}
