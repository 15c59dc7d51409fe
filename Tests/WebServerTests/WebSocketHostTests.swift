import Foundation
import Synchronization
import TestSupport
import Testing
@testable import WebServer
import WebSocket

/// An HTTP server whose `/hub` is a `BroadcastService` on its WebSocket host, as `TokenServer` puts them together;
/// every other path answers pong.
final class WebSocketTestServer: Sendable {
    let http: HTTPServer
    private let host: WebSocketHost.Handle
    var port: UInt16 { http.port }
    var maxConnections: Int { http.maxConnections }

    init(log: LogLines? = nil, limits: WebSocketLimits) throws {
        let host = try WebSocketHost.Handle(WebSocketEndpoint(path: "/hub", limits: limits) { BroadcastService() }, log: log?.writer)
        do {
            http = try HTTPServer(host: "127.0.0.1", port: 0, log: nil) { request in
                request.path == host.path ? host.upgrade(request) : .json(200, member: "message", "pong")
            }
        } catch {
            host.stop()
            throw error
        }
        self.host = host
    }

    func stop() {
        host.stop()
        http.stop()
    }
}

func startWebSocketServer(log: LogLines? = nil, limits: WebSocketLimits = WebSocketLimits(silenceLimit: .seconds(20))) throws
    -> WebSocketTestServer {
    try WebSocketTestServer(log: log, limits: limits)
}

@Suite struct WebSocketHostTests {
    @Test func aClientUpgradesAndItsMessagesComeBackWholeEvenFragmented() throws {
        let server = try startWebSocketServer()
        defer { server.stop() }
        let client = try WebSocketTestClient.open(port: server.port)
        #expect(try client.nextText() == "hello #1")
        var first = WebSocketFrame.encode(.text, Array("Hel".utf8), mask: (1, 2, 3, 4))
        first[0] = 0x01
        var last = WebSocketFrame.encode(.text, Array("lo".utf8), mask: (1, 2, 3, 4))
        last[0] = 0x80
        client.send(raw: first + WebSocketFrame.encode(.ping, [9], mask: (1, 2, 3, 4)) + last)
        #expect(try client.next() == .pong([9]))
        #expect(try client.nextText() == "Hello")
    }

    @Test func theEndpointRefusesWhatIsNotAHandshakeAndTheOtherRoutesStillAnswer() throws {
        let server = try startWebSocketServer()
        defer { server.stop() }
        let plain = try WebSocketTestClient(port: server.port).handshake("GET /hub HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(plain.hasPrefix("HTTP/1.1 400 "))
        #expect(plain.contains("this endpoint speaks WebSocket only"))
        let old = try WebSocketTestClient(port: server.port).handshake(
            "GET /hub HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n")
        #expect(old.hasPrefix("HTTP/1.1 426 "))
        #expect(old.contains("Sec-WebSocket-Version: 13\r\n"))
        let ping = try WebSocketTestClient(port: server.port).handshake("GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(ping.hasPrefix("HTTP/1.1 200 "))
    }

    @Test func anOversizedFrameClosesWith1009AndALogLine() throws {
        let log = LogLines()
        let server = try startWebSocketServer(log: log)
        defer { server.stop() }
        let client = try WebSocketTestClient.open(port: server.port)
        _ = try client.nextText()
        // Only the header: a 2^32-byte frame is refused before a byte of it arrives.
        client.send(raw: [0x82, 0x80 | 127, 0, 0, 0, 1, 0, 0, 0, 0, 1, 2, 3, 4])
        let close = try #require(try client.closeFrame())
        #expect(close.code == .messageTooBig)
        #expect(close.reason.contains("65536"))
        #expect(try client.next() == nil)
        #expect(log.all.contains { $0.hasPrefix("ws /hub 127.0.0.1 #1 closed 1009: ") })
    }

    @Test func anUnmaskedFrameClosesWith1002AndBadTextWith1007() throws {
        let server = try startWebSocketServer()
        defer { server.stop() }
        let unmasked = try WebSocketTestClient.open(port: server.port)
        unmasked.send(raw: WebSocketFrame.encode(.text, Array("hi".utf8)))
        #expect(try unmasked.closeFrame()?.code == .protocolError)
        let badText = try WebSocketTestClient.open(port: server.port)
        badText.send(raw: WebSocketFrame.encode(.text, [0xFF], mask: (1, 2, 3, 4)))
        #expect(try badText.closeFrame()?.code == .invalidData)
    }

    @Test func theServiceClosesWithItsCodeAndTheOthersHearOfIt() throws {
        let server = try startWebSocketServer()
        defer { server.stop() }
        let stays = try WebSocketTestClient.open(port: server.port)
        #expect(try stays.nextText() == "hello #1")
        let leaves = try WebSocketTestClient.open(port: server.port)
        _ = try leaves.nextText()
        leaves.send(text: "refuse")
        #expect(try leaves.closeFrame()?.code == .policyViolation)
        #expect(try stays.nextText() == "closed #2 closedByHost(1008)")
        let quits = try WebSocketTestClient.open(port: server.port)
        _ = try quits.nextText()
        quits.sendClose(.goingAway)
        #expect(try quits.closeFrame()?.code == .goingAway)
        #expect(try stays.nextText() == "closed #3 closedByClient(1001)")
    }

    @Test func aCloseTheServiceDecidesAtItsTickIsSentAtOnce() throws {
        let server = try startWebSocketServer()
        defer { server.stop() }
        let stays = try WebSocketTestClient.open(port: server.port)
        #expect(try stays.nextText() == "hello #1")
        let closed = try WebSocketTestClient.open(port: server.port)
        _ = try closed.nextText()
        closed.send(text: "close at tick")
        let asked = ContinuousClock.now
        // Nothing more comes from the client: only the host's own flush can send the frame.
        let close = try #require(try closed.closeFrame(), "no close frame")
        #expect(close.code == .goingAway && close.reason == "closed at the tick")
        #expect(ContinuousClock.now - asked < .seconds(1))
        #expect(try stays.nextText() == "closed #2 closedByHost(1001)")
    }

    @Test func aClientThatDoesNotReadIsDroppedAndStallsNobody() throws {
        let log = LogLines()
        let server = try startWebSocketServer(log: log)
        defer { server.stop() }
        let stuck = try WebSocketTestClient(port: server.port, receiveBuffer: 4096)
        _ = try stuck.handshake("GET /hub HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        #expect(try stuck.nextText() == "hello #1")  // and not a byte more
        let reader = try WebSocketTestClient.open(port: server.port)
        #expect(try reader.nextText() == "hello #2")
        // 32 KiB to each, up to 400 times over: more than the kernel's buffers and the host's queue hold for a
        // client that reads nothing, while the reader reads each before asking for the next.
        var rounds = 0, binaries = 0
        var texts: [String] = []
        while rounds < 400, !texts.contains(where: { $0.hasPrefix("closed #1") }) {
            rounds += 1
            reader.send(text: "flood 1")
            while let event = try reader.next() {
                if case .binary = event { binaries += 1 }
                if case .text(let text) = event { texts.append(text) }
                if case .text("flooded") = event { break }
            }
        }
        #expect(binaries == rounds)
        #expect(texts.contains("closed #1 closedByHost(1008)"))
        #expect(log.all.contains { $0.contains("#1 dropped:") && $0.contains("too slow a reader") })
    }

    @Test func aClientHeardFromNotAtAllIsLost() throws {
        let log = LogLines()
        let limits = WebSocketLimits(silenceLimit: .milliseconds(200))
        let server = try startWebSocketServer(log: log, limits: limits)
        defer { server.stop() }
        let silent = try WebSocketTestClient.open(port: server.port)
        #expect(try silent.nextText() == "hello #1")
        #expect(try silent.closeFrame() == nil)
        #expect(log.all.contains("ws /hub 127.0.0.1 #1 lost: nothing heard for 0.2 seconds"))
    }

    @Test func aClientThatTricklesAFrameItNeverFinishesIsLost() throws {
        let log = LogLines()
        let server = try startWebSocketServer(log: log, limits: WebSocketLimits(silenceLimit: .milliseconds(300)))
        defer { server.stop() }
        let trickler = try WebSocketTestClient.open(port: server.port)
        #expect(try trickler.nextText() == "hello #1")
        // A frame of 1000 bytes sent a byte every 20 ms: bytes arrive all the time, a whole frame not for 20 s.
        let frame = WebSocketFrame.encode(.binary, [UInt8](repeating: 1, count: 1000), mask: (1, 2, 3, 4))
        let done = Done()
        Thread {
            for byte in frame where !done.flag.load(ordering: .relaxed) {
                trickler.send(raw: [byte])
                Thread.sleep(forTimeInterval: 0.02)
            }
        }.start()
        defer { done.flag.store(true, ordering: .relaxed) }
        #expect(try trickler.closeFrame() == nil)
        #expect(log.all.contains("ws /hub 127.0.0.1 #1 lost: nothing heard for 0.3 seconds"))
    }

    @Test func stoppingTheServerClosesClientsWith1001() throws {
        let server = try startWebSocketServer()
        let client = try WebSocketTestClient.open(port: server.port)
        _ = try client.nextText()
        server.stop()
        #expect(try client.closeFrame()?.code == .goingAway)
    }

    /// A stop after the first (a test's deferred one, an embedded server's restart) returns at once: it waited out the
    /// host's bound for a service that could no longer answer.
    @Test func aSecondStopReturnsAtOnce() throws {
        let server = try startWebSocketServer()
        server.stop()
        let began = ContinuousClock.now
        server.stop()
        #expect(ContinuousClock.now - began < .milliseconds(500))
    }
}

private final class Done: Sendable {
    let flag = Atomic(false)
}
