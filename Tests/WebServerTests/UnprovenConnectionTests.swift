import Foundation
import Sockets
import TestSupport
import Testing
import TLS
import WebSocket
@testable import WebServer
#if canImport(Glibc)
import Glibc
#endif

/// Connections that have not proven themselves (no request read whole, no WebSocket in a channel) give their places
/// to newcomers when the server is full; proven ones never do.
@Suite(.serialized) struct UnprovenConnectionTests {
    /// The five addresses an attacker connects from, 52 connections each: under the per-address limit of 64, 260 in all.
    static let attackers = (2...6).map { "127.0.0.\($0)" }

    /// Opens `perAddress` connections from each attacker address that never send a byte.
    static func silent(port: UInt16, perAddress: Int) -> [Int32] {
        var fds: [Int32] = []
        for _ in 0..<perAddress {
            for address in attackers { if let fd = Loopback.connect(port: port, from: address) { fds.append(fd) } }
        }
        return fds
    }

    static func waitUntil(_ limit: Duration = .seconds(10), _ condition: () -> Bool) {
        let deadline = ContinuousClock.now + limit
        while !condition(), ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
    }

    static func pingServer(tls: TLSContext? = nil) throws -> HTTPServer {
        try HTTPServer(host: "127.0.0.1", port: 0, tls: tls, log: nil) { _ in .json(200, member: "message", "pong") }
    }

    @Test func silentConnectionsOnEverySlotGiveWayToAnHonestClient() throws {
        let server = try Self.pingServer()
        defer { server.stop() }
        var held = Self.silent(port: server.port, perAddress: 52)
        defer { for fd in held { close(fd) } }
        Self.waitUntil { server.connectionCount == server.maxConnections }
        var answered = 0
        for _ in 0..<10 {
            held += Self.silent(port: server.port, perAddress: 1)  // the attacker reopens
            if try RawClient(port: server.port).request("GET", "/ping")?.status == 200 { answered += 1 }
        }
        #expect(answered == 10)
        #expect(server.connectionCount <= server.maxConnections)
    }

    @Test func silentConnectionsOnEverySlotGiveWayToAnHonestHTTPSClient() throws {
        let certificates = try TestCertificates.shared.get()
        let server = try Self.pingServer(tls: try TLSContext(certificateFile: certificates.good.certificate, keyFile: certificates.good.key))
        defer { server.stop() }
        var held = Self.silent(port: server.port, perAddress: 52)
        defer { for fd in held { close(fd) } }
        Self.waitUntil { server.connectionCount == server.maxConnections }
        var answered = 0
        for _ in 0..<10 {
            held += Self.silent(port: server.port, perAddress: 1)
            if (try? TLSTestClient(port: server.port, caFile: certificates.caFile).get("/ping"))??.status == 200 { answered += 1 }
        }
        #expect(answered == 10)
    }

    @Test func aProvenConnectionNeverGivesWayAndAFullServerOfThemRefusesNewcomers() throws {
        var limits = HTTPServer.Limits()
        limits.maxConnections = 8
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits, log: nil) { _ in .json(200, member: "message", "pong") }
        defer { server.stop() }
        let proven = try (0..<4).map { _ in try RawClient(port: server.port) }
        for client in proven { #expect(client.request("GET", "/ping")?.status == 200) }
        let silent = (0..<10).compactMap { _ in Loopback.connect(port: server.port, from: "127.0.0.2") }
        defer { for fd in silent { close(fd) } }
        Self.waitUntil { server.connectionCount == 8 }
        let newcomer = try RawClient(port: server.port, from: "127.0.0.3")
        #expect(newcomer.request("GET", "/ping")?.status == 200, "a silent one gave way")
        for client in proven { #expect(client.request("GET", "/ping")?.status == 200, "still open, still served") }
        let first = silent[0]
        var answer = [UInt8](repeating: 0, count: 512)
        let count = recv(first, &answer, answer.count, 0)
        #expect(count > 0 && String(decoding: answer[..<max(count, 0)], as: UTF8.self).hasPrefix("HTTP/1.1 503 "),
                "the longest silent one hears why it is closed")

        var more: [RawClient] = []
        for _ in 0..<3 {  // one at a time, each proven before the next comes: the last silent ones give way
            more.append(try RawClient(port: server.port, from: "127.0.0.4"))
            #expect(more.last?.request("GET", "/ping")?.status == 200)
        }
        let refused = try RawClient(port: server.port, from: "127.0.0.5").readResponse()
        #expect(refused?.status == 503, "every place is proven")
        #expect((refused?.json?["error"] as? String)?.contains("all of them in use") == true)
        for client in proven + more + [newcomer] { #expect(client.request("GET", "/ping")?.status == 200) }
    }

    @Test func idleWebSocketsOnEverySlotGiveWayToAnHonestClientAndHearWhy() throws {
        let log = LogLines()
        let server = try startWebSocketServer(log: log)
        defer { server.stop() }
        let proven = try WebSocketTestClient.open(port: server.port)
        #expect(try proven.nextText() == "hello #1")
        proven.send(text: "prove")
        #expect(try proven.nextText() == "proven")
        let addresses = (2...7).map { "127.0.0.\($0)" }
        var sockets: [WebSocketTestClient] = []
        for address in addresses {
            for _ in 0..<50 { sockets.append(try WebSocketTestClient.open(port: server.port, from: address)) }
        }
        #expect(sockets.count == 300, "every one was answered 101")
        var answered = 0
        for _ in 0..<10 where try RawClient(port: server.port).request("GET", "/ping")?.status == 200 { answered += 1 }
        #expect(answered == 10)
        // The oldest silent one gave way first: it heard its greeting, then why it is closed. Its id is the host's, given
        // as connections are handed over, which two busy loops may do out of the order they were opened in.
        var events: [WebSocketEvent] = []
        while let event = try? sockets[0].next() { events.append(event) }
        guard case .text(let hello)? = events.first, hello.utf8.starts(with: "hello #".utf8),
              case .close(let code, let reason)? = events.last else { Issue.record("\(events)"); return }
        #expect(code == .policyViolation && reason.utf8.starts(with: "the server is full".utf8))
        let id = hello.dropFirst("hello ".count)
        #expect(log.all.contains { $0.hasPrefix("ws /hub 127.0.0.2 \(id) closed 1008: the server is full") })
        proven.send(raw: WebSocketFrame.encode(.ping, [1], mask: (1, 2, 3, 4)))
        var event = try proven.next()
        while case .text = event { event = try proven.next() }  // others' ends, told to everyone
        #expect(event == .pong([1]), "the proven one is still open")
    }

    @Test func aWebSocketOpenedOnAConnectionThatWasAnsweredBeforeIsUnprovenTillItJoins() throws {
        let server = try startWebSocketServer()
        defer { server.stop() }
        // A request answered, then the upgrade on the same connection: a 101 proves nothing, whatever came before it.
        var sockets: [RawClient] = []
        for address in (2...7).map({ "127.0.0.\($0)" }) {
            for _ in 0..<43 {
                let client = try RawClient(port: server.port, from: address)
                guard client.request("GET", "/ping")?.status == 200 else { continue }
                client.send("GET /hub HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                if client.readResponse(bodyless: true)?.status == 101 { sockets.append(client) }
            }
        }
        #expect(sockets.count >= server.maxConnections, "every place is held by a WebSocket that never joins")
        var answered = 0
        for _ in 0..<10 where try RawClient(port: server.port).request("GET", "/ping")?.status == 200 { answered += 1 }
        #expect(answered == 10)
    }
}
