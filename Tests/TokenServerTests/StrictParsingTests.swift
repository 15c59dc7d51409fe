import Foundation
import TestSupport
import Testing
@testable import TokenServer
@testable import WebServer

/// What a server decides from a request's fields, over one connection (the parser's refusals, sans I/O: `RefusalTests`).
@Suite struct StrictParsingTests {
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
