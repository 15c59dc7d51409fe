import Foundation
import TestSupport
import Testing
@testable import TokenServer
@testable import WebServer

@Suite struct ConnectionLimitTests {
    @Test func oneAddressCannotTakeEverySlot() throws {
        let server = try startServer(maxConnections: 8, perAddress: 2)
        defer { server.stop() }
        var held = [try RawClient(port: server.port), try RawClient(port: server.port)]
        for client in held { #expect(client.request("GET", "/ping")?.status == 200) }

        let refused = try RawClient(port: server.port).readResponse()
        #expect(refused?.status == 503)
        #expect(refused?.headers["retry-after"] == "1")
        #expect((refused?.json?["error"] as? String)?.contains("127.0.0.1 has 2 connections open") == true)

        let elsewhere = try RawClient(port: server.port, from: "127.0.0.2")
        #expect(elsewhere.request("GET", "/ping")?.status == 200, "another address is served")

        held.removeFirst()
        let deadline = ContinuousClock.now + .seconds(3)
        var status = 0
        while status != 200, ContinuousClock.now < deadline {
            status = try RawClient(port: server.port).request("GET", "/ping")?.status ?? 0
            if status != 200 { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(status == 200, "a closed connection frees its address's slot")
    }

    @Test func theAnnouncementSaysWhereItListens() {
        #expect(TokenServer.listening(host: "127.0.0.1", port: 8082) == "http://127.0.0.1:8082")
        #expect(TokenServer.listening(host: "::1", port: 80) == "http://[::1]:80")
        #expect(TokenServer.listening(host: "0.0.0.0", port: 8082)
                == "http://0.0.0.0:8082 (every IPv4 interface; on this machine http://127.0.0.1:8082)")
        #expect(TokenServer.listening(host: "::", port: 8082) == "http://[::]:8082 (every interface; on this machine http://[::1]:8082)")
    }
}
