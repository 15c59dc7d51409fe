import HTTP1
import Testing
@testable import WebServer

/// The server connection's phases, event by event, without a socket or a clock.
@Suite struct HTTPConnectionMachineTests {
    let start = ContinuousClock.now
    let times = HTTPConnectionMachine.Times(requestDeadline: .seconds(10), idleTimeout: .seconds(30), sendTimeout: .seconds(5),
                                            lingerTimeout: .seconds(2))

    func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    func served(_ action: HTTPConnectionMachine.Action) -> HTTPRequest? {
        if case .serve(let request, _) = action { return request }
        return nil
    }

    func sentText(_ action: HTTPConnectionMachine.Action) -> String? {
        if case .send(let bytes) = action { return String(decoding: bytes, as: UTF8.self) }
        return nil
    }

    func waits(_ action: HTTPConnectionMachine.Action) -> (HTTPConnectionMachine.Waiting, ContinuousClock.Instant)? {
        if case .wait(let waiting, let until) = action { return (waiting, HTTPConnectionMachine.instant(until)) }
        return nil
    }

    @Test func aKeptAliveRequestIsServedAnsweredAndTheConnectionWaitsForTheNext() throws {
        var machine = HTTPConnectionMachine(now: start, times: times, handshaking: false)
        #expect(waits(machine.start())! == (.read, start + .seconds(30)))
        let request = try #require(served(machine.received(bytes("GET /ping HTTP/1.1\r\nHost: t\r\n\r\n"), now: start)))
        #expect(request.path == "/ping")
        #expect(machine.isBusy)
        let answer = sentText(machine.respond(.error(404, "no"), to: request, keepAlive: true, now: start + .seconds(1)))
        #expect(answer?.hasPrefix("HTTP/1.1 404") == true && answer?.contains("Connection: keep-alive") == true)
        let next = waits(machine.sent(allOut: true, progressed: true, now: start + .seconds(2)))
        #expect(next! == (.read, start + .seconds(32)), "idle from when the answer went out")
        #expect(!machine.isBusy)
    }

    @Test func aRequestArrivingInPiecesIsServedOnceWholeAndItsDeadlineRunsFromTheFirstByte() throws {
        var machine = HTTPConnectionMachine(now: start, times: times, handshaking: false)
        let first = waits(machine.received(bytes("GET /ping HT"), now: start + .seconds(1)))
        #expect(first! == (.read, start + .seconds(11)))
        #expect(machine.isBusy)
        #expect(served(machine.received(bytes("TP/1.1\r\nHost: t\r\n\r\n"), now: start + .seconds(3)))?.path == "/ping")
    }

    @Test func aRequestNotWholeByItsDeadlineIsAnswered408AndClosedAfterLingering() throws {
        var machine = HTTPConnectionMachine(now: start, times: times, handshaking: false)
        _ = machine.received(bytes("GET /ping HT"), now: start)
        #expect(waits(machine.deadlinePassed(now: start + .seconds(9)))! == (.read, start + .seconds(10)), "not yet")
        guard case .refuse(let response, _) = machine.deadlinePassed(now: start + .seconds(10)) else {
            Issue.record("no refusal at the deadline")
            return
        }
        #expect(response.status == 408)
        let answer = sentText(machine.respond(response, to: nil, keepAlive: false, now: start + .seconds(10)))
        #expect(answer?.contains("Connection: close") == true)
        guard case .linger(let moment) = machine.sent(allOut: true, progressed: true, now: start + .seconds(10)) else {
            Issue.record("no lingering after a closing answer")
            return
        }
        let until = HTTPConnectionMachine.instant(moment)
        #expect(until == start + .seconds(12))
        #expect(machine.reads, "lingering reads what still arrives")
        #expect(waits(machine.received(bytes("more"), now: start + .seconds(11)))! == (.readOnly, until),
                "what arrives is dropped, and nothing more is sent: the sending side is shut")
        guard case .close = machine.deadlinePassed(now: until) else { Issue.record("still open after lingering"); return }
    }

    @Test func aBadRequestIsRefusedWithItsStatusAndTheRestOfTheBufferIsDropped() {
        var machine = HTTPConnectionMachine(now: start, times: times, handshaking: false)
        guard case .refuse(let response, _) = machine.received(bytes("GET /ping HTTP/1.1\r\nHost: t\r\nBad Header\r\n\r\nGET /"), now: start) else {
            Issue.record("not refused"); return
        }
        #expect(response.status == 400)
        #expect(machine.buffer.isEmpty)
    }

    @Test func pipelinedRequestsWaitForTheAnswerBeforeThemToBeOut() throws {
        var machine = HTTPConnectionMachine(now: start, times: times, handshaking: false)
        let two = "GET /a HTTP/1.1\r\nHost: t\r\n\r\nGET /b HTTP/1.1\r\nHost: t\r\n\r\n"
        let first = try #require(served(machine.received(bytes(two), now: start)))
        #expect(first.path == "/a")
        _ = machine.respond(.error(404, "no"), to: first, keepAlive: true, now: start)
        #expect(waits(machine.sent(allOut: false, progressed: true, now: start))! == (.write, start + .seconds(5)))
        #expect(!machine.reads, "nothing read while the answer is going out")
        #expect(waits(machine.received(bytes(""), now: start))!.0 == .write)
        #expect(served(machine.sent(allOut: true, progressed: true, now: start + .seconds(1)))?.path == "/b")
    }

    @Test func aClientPipeliningMegabytesWhileItsAnswerIsPendingIsNotBufferedBeyondTheBound() throws {
        var machine = HTTPConnectionMachine(now: start, times: times, handshaking: false)
        let request = try #require(served(machine.received(bytes("GET /a HTTP/1.1\r\nHost: t\r\n\r\n"), now: start)))
        _ = machine.respond(.error(404, "no"), to: request, keepAlive: true, now: start)
        #expect(waits(machine.sent(allOut: false, progressed: false, now: start))!.0 == .write)
        #expect(!machine.reads, "the loop stops reading")
        let chunk = bytes(String(repeating: "GET /b HTTP/1.1\r\nHost: t\r\n\r\n", count: 512))  // 16 KiB, a receive's worth
        var closed = false, mostHeld = 0
        for _ in 0..<(4 * 1024 * 1024 / chunk.count) where !closed {
            if case .close = machine.received(chunk, now: start) { closed = true }
            mostHeld = max(mostHeld, machine.buffer.count)
        }
        #expect(mostHeld <= HTTPConnectionMachine.maxHeldWhileSending)
        #expect(closed, "bytes past the bound close the connection")
    }

    @Test func anAnswerTheClientTakesNoneOfForTheSendTimeoutClosesTheConnection() {
        var machine = HTTPConnectionMachine(now: start, times: times, handshaking: false)
        let request = served(machine.received(bytes("GET /big HTTP/1.1\r\nHost: t\r\n\r\n"), now: start))!
        _ = machine.respond(.error(404, "no"), to: request, keepAlive: true, now: start)
        #expect(waits(machine.sent(allOut: false, progressed: true, now: start + .seconds(1)))! == (.write, start + .seconds(6)))
        #expect(waits(machine.sent(allOut: false, progressed: false, now: start + .seconds(4)))! == (.write, start + .seconds(6)),
                "no progress: the deadline stays")
        guard case .close = machine.deadlinePassed(now: start + .seconds(6)) else { Issue.record("still open"); return }
    }

    @Test func aTLSConnectionMustFinishItsHandshakeWithinTheRequestDeadline() {
        var silent = HTTPConnectionMachine(now: start, times: times, handshaking: true)
        #expect(waits(silent.start())! == (.read, start + .seconds(10)))
        #expect(waits(silent.received(bytes("GET / HTTP/1.1\r\n\r\n"), now: start))! == (.read, start + .seconds(10)),
                "no plaintext before the handshake")
        guard case .close = silent.deadlinePassed(now: start + .seconds(10)) else { Issue.record("a silent TLS client stays"); return }

        var secured = HTTPConnectionMachine(now: start, times: times, handshaking: true)
        #expect(waits(secured.handshakeFinished(now: start + .seconds(1)))! == (.read, start + .seconds(31)))
        #expect(served(secured.received(bytes("GET /ping HTTP/1.1\r\nHost: t\r\n\r\n"), now: start + .seconds(2))) != nil)
    }

    @Test func stoppingClosesIdleConnectionsAndLetsRequestsUnderWayFinish() {
        var idle = HTTPConnectionMachine(now: start, times: times, handshaking: false)
        guard case .close = idle.stopping() else { Issue.record("an idle connection stays open while stopping"); return }
        var busy = HTTPConnectionMachine(now: start, times: times, handshaking: false)
        _ = busy.received(bytes("GET /ping HT"), now: start)
        #expect(busy.stopping() == nil)
        #expect(busy.isBusy)
    }

    @Test func aSwitchingProtocolsAnswerHandsTheConnectionOverWithTheBytesAfterTheRequest() throws {
        var machine = HTTPConnectionMachine(now: start, times: times, handshaking: false)
        let request = try #require(served(machine.received(bytes("GET /hub HTTP/1.1\r\nHost: t\r\n\r\nframe"), now: start)))
        let response = HTTPResponse.switchingProtocols(headers: [], to: Takeover(adopt: { _, _, _, _ in }, evict: { _ in }))
        _ = machine.respond(response, to: request, keepAlive: true, now: start)
        guard case .handOver(_, let leftover) = machine.sent(allOut: true, progressed: true, now: start) else {
            Issue.record("not handed over"); return
        }
        #expect(leftover == bytes("frame"))
    }

    @Test func theClientClosingEndsTheConnectionInAnyPhase() {
        var machine = HTTPConnectionMachine(now: start, times: times, handshaking: false)
        _ = machine.received(bytes("GET /ping HT"), now: start)
        guard case .close = machine.peerClosed() else { Issue.record("not closed"); return }
        guard case .close = machine.received(bytes("TP/1.1\r\n\r\n"), now: start) else { Issue.record("served after closing"); return }
    }
}
