import Foundation
import Testing
@testable import TokenServer
@testable import WebServer

/// Requests a lenient reader and a proxy in front of it could read two ways are refused, with words saying what is
/// wrong, and the connection is closed (RFC 9112).
@Suite struct StrictParsingTests {
    @Test(arguments: [
        ("LF alone inside a header hides another", "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX: a\nTransfer-Encoding: chunked\r\n\r\n", 400, "LF without CR"),
        ("CR alone inside a header hides another", "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX: a\rTransfer-Encoding: chunked\r\n\r\n", 400, "CR without LF"),
        ("CR alone in the request line", "GET /ping\r HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400, "CR without LF"),
        ("LF alone, before the head is whole", "GET /ping HTTP/1.1\r\nHost: x\nX: y", 400, "LF without CR"),
        ("signed Content-Length", "POST /getToken HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: +2\r\n\r\n{}", 400, "send digits only"),
        ("Content-Length as a list", "POST /getToken HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2, 2\r\n\r\n{}", 400, "send digits only"),
        ("empty Content-Length", "POST /getToken HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length:\r\n\r\n", 400, "send digits only"),
        ("Content-Length past Int", "POST /getToken HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 99999999999999999999999\r\n\r\n", 413, "at most 16384"),
        ("Transfer-Encoding beside Content-Length",
         "POST /getToken HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}", 400, "both Transfer-Encoding and Content-Length"),
        ("obsolete line folding", "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX: a\r\n b\r\n\r\n", 400, "line folding"),
        ("space before the colon", "GET /ping HTTP/1.1\r\nHost : x\r\n\r\n", 400, "space before its colon"),
        ("a control byte in a value", "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX: a\u{01}b\r\n\r\n", 400, "control character byte 0x01"),
        ("DEL in a value", "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX: a\u{7f}\r\n\r\n", 400, "control character byte 0x7F"),
        ("a separator in a header name", "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX(y): z\r\n\r\n", 400, "header name has \"(\""),
        ("a separator in the method", "G(T /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400, "method has \"(\""),
        ("a control byte in the target", "GET /pi\u{01}ng HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400, "percent-encoded (%01)"),
        ("raw UTF-8 in the target", "GET /rtc/caf\u{e9}/1/uid/1/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400, "percent-encoded (%C3)"),
        ("a quote in the target", "GET /ping\"x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400, "percent-encoded (%22)"),
        ("two spaces in the request line", "GET  /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400, "one space apart"),
        ("no Host in HTTP/1.1", "GET /ping HTTP/1.1\r\n\r\n", 400, "needs a Host header"),
        ("two Hosts", "GET /ping HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "2 Host headers"),
        ("two Hosts in HTTP/1.0", "GET /ping HTTP/1.0\r\nHost: a\r\nhost: a\r\n\r\n", 400, "2 Host headers"),
    ])
    func ambiguousRequestsAreRefusedAndTheConnectionClosed(name: String, raw: String, status: Int, words: String) throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.send(raw)
        let response = client.readResponse()
        #expect(response?.status == status, "\(name)")
        #expect((response?.json?["error"] as? String)?.contains(words) == true, "\(name): \(response?.body ?? "no answer")")
        #expect(response?.headers["connection"] == "close", "\(name)")
        #expect(client.isClosedByServer(), "\(name)")
    }

    @Test func strictIsNotFussy() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let body = #"{"uid": 1, "channelName": "a"}"#
        client.send("POST /fetch_rtc_token HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Name:\t caf\u{e9} \t\r\nContent-Length: 0\(body.utf8.count)\r\n"
                    + "Content-Length: 0\(body.utf8.count)\r\n\r\n\(body)")
        #expect(client.readResponse()?.json?["token"] is String)
        #expect(client.request("GET", "/rtc/a%20b/1/uid/5/?expiry=60")?.status == 200)
        let old = try RawClient(port: server.port)
        old.send("GET /ping HTTP/1.0\r\n\r\n")
        #expect(old.readResponse()?.status == 200, "HTTP/1.0 may leave Host out")
    }

    @Test(arguments: ["keep-alive, close", "close, keep-alive", "Upgrade,CLOSE"])
    func anyCloseInTheConnectionListCloses(connection: String) throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let response = client.request("GET", "/ping", headers: ["Connection": connection])
        #expect(response?.status == 200)
        #expect(response?.headers["connection"] == "close")
        #expect(client.isClosedByServer())
    }

    @Test func headGetsTheHeadersOfGetAndNoBody() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let get = try #require(client.request("GET", "/ping"))
        client.send("HEAD /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let head = client.readResponse(bodyless: true)
        #expect(head?.status == 200)
        #expect(head?.headers["content-length"] == "\(get.body.utf8.count)")
        #expect(head?.headers["content-type"] == "application/json")
        let next = client.readResponse()
        #expect(next?.status == 200 && next?.json?["message"] as? String == "pong", "the GET after a HEAD reads whole")

        client.send("HEAD /fetch_rtc_token HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let refused = client.readResponse(bodyless: true)
        #expect(refused?.status == 405 && refused?.headers["allow"] == "POST")
        #expect(client.readResponse()?.json?["message"] as? String == "pong")
        #expect(client.request("POST", "/ping", body: "")?.headers["allow"] == "GET, HEAD")
    }
}
