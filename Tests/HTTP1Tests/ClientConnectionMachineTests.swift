import Testing
@testable import HTTP1

/// A client connection fed a server's bytes: when it is kept for the next request, when a request goes again, and
/// that one request at a time goes out.
@Suite struct ClientConnectionMachineTests {
    static let request = Array("GET /token HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
    static let answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"

    /// A machine with `request` sent and wholly out.
    static func sending(_ machine: inout ClientConnectionMachine, method: String = "GET") {
        #expect(machine.send(request, method: method, bodyLimit: 64) == .write(request))
        machine.sent()
    }

    static func feed(_ machine: inout ClientConnectionMachine, _ text: String, in size: Int) -> ClientConnectionMachine.Action {
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let action = machine.received(bytes[start..<min(start + size, bytes.count)])
            if action != .wait { return action }
            start += size
        }
        return .wait
    }

    @Test(arguments: [1, 7, 4096])
    func twoExchangesGoOneAfterTheOtherOnOneConnection(size: Int) {
        var machine = ClientConnectionMachine()
        for _ in 0..<2 {
            Self.sending(&machine)
            #expect(Self.feed(&machine, Self.answer, in: size) == .answer(HTTPReply(status: 200, fields: [("Content-Length", "2")], body: Array("{}".utf8)), keepAlive: true))
            #expect(machine.isIdle)
        }
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}",
        "HTTP/1.1 200 OK\r\nConnection: Keep-Alive, CLOSE\r\nContent-Length: 2\r\n\r\n{}",
        "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}",
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}HTTP/1.1 200 OK\r\n",
    ])
    func anAnswerThatEndsItsConnectionIsNotKept(text: String) {
        var machine = ClientConnectionMachine()
        Self.sending(&machine)
        guard case .answer(let reply, let keepAlive) = Self.feed(&machine, text, in: 4096) else {
            Issue.record("no answer from \(text.debugDescription)")
            return
        }
        #expect(reply.body == Array("{}".utf8))
        #expect(!keepAlive)
        #expect(machine.send(Self.request, method: "GET", bodyLimit: 64) == .busy, "closed: nothing more goes on it")
    }

    @Test func aBodyReadToTheCloseEndsTheConnection() {
        var machine = ClientConnectionMachine()
        Self.sending(&machine)
        #expect(Self.feed(&machine, "HTTP/1.1 200 OK\r\n\r\n{}", in: 4096) == .wait)
        #expect(machine.closed() == .answer(HTTPReply(status: 200, body: Array("{}".utf8)), keepAlive: false))
    }

    @Test func anAnswerBeforeTheWholeRequestIsOutEndsTheConnection() {
        var machine = ClientConnectionMachine()
        _ = machine.send(Self.request, method: "POST", bodyLimit: 64)
        #expect(Self.feed(&machine, "HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\n\r\n", in: 4096)
            == .answer(HTTPReply(status: 413, fields: [("Content-Length", "0")]), keepAlive: false))
    }

    @Test func noSecondRequestGoesWhileOneIsUnderWay() {
        var machine = ClientConnectionMachine()
        _ = machine.send(Self.request, method: "GET", bodyLimit: 64)
        #expect(machine.send(Self.request, method: "GET", bodyLimit: 64) == .busy)
        machine.sent()
        #expect(machine.send(Self.request, method: "GET", bodyLimit: 64) == .busy)
        #expect(Self.feed(&machine, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{", in: 4096) == .wait)
        #expect(machine.send(Self.request, method: "GET", bodyLimit: 64) == .busy)
    }

    @Test func aKeptConnectionClosedBeforeAnyByteOfTheAnswerRetriesTheRequest() {
        var machine = ClientConnectionMachine()
        Self.sending(&machine)
        _ = Self.feed(&machine, Self.answer, in: 4096)
        Self.sending(&machine)
        #expect(machine.closed() == .retry)
        #expect(machine.send(Self.request, method: "GET", bodyLimit: 64) == .busy)
    }

    @Test func aNewConnectionClosedBeforeTheAnswerIsAFailureNotARetry() {
        var machine = ClientConnectionMachine()
        Self.sending(&machine)
        #expect(machine.closed() == .fail(.cut("the server closed the connection without an answer")))
    }

    @Test func aKeptConnectionClosedInsideTheAnswerIsAFailureNotARetry() {
        var machine = ClientConnectionMachine()
        Self.sending(&machine)
        _ = Self.feed(&machine, Self.answer, in: 4096)
        Self.sending(&machine)
        #expect(Self.feed(&machine, "HTTP/1.1 200", in: 4096) == .wait)
        #expect(machine.closed() == .fail(.cut("the connection closed before the whole answer: inside its head, which must end with a blank line")))
    }

    @Test func bytesNobodyAskedForCloseAnIdleConnection() {
        var machine = ClientConnectionMachine()
        Self.sending(&machine)
        _ = Self.feed(&machine, Self.answer, in: 4096)
        #expect(machine.received(Array("HTTP/1.1 408 Request Timeout\r\n\r\n".utf8)[...]) == .close)
        #expect(machine.send(Self.request, method: "GET", bodyLimit: 64) == .busy)
    }

    @Test func anIdleConnectionTheServerClosedIsClosed() {
        var machine = ClientConnectionMachine()
        #expect(machine.closed() == .close)
        #expect(!machine.isIdle)
    }

    @Test func aBodyOverTheLimitFailsTheExchange() {
        var machine = ClientConnectionMachine()
        Self.sending(&machine)
        #expect(Self.feed(&machine, "HTTP/1.1 200 OK\r\nContent-Length: 65\r\n\r\n", in: 4096) == .fail(.tooLong(bytes: 65, limit: 64)))
        #expect(machine.closed() == .wait, "already closed")
    }

    @Test func givingUpClosesWhateverIsUnderWayOnce() {
        var machine = ClientConnectionMachine()
        Self.sending(&machine)
        #expect(machine.giveUp() == .close)
        #expect(machine.giveUp() == .wait)
        #expect(machine.received(Array(Self.answer.utf8)[...]) == .wait)
    }

    @Test func theAnswerToAHeadHasNoBodyAndKeepsTheConnection() {
        var machine = ClientConnectionMachine()
        Self.sending(&machine, method: "HEAD")
        #expect(Self.feed(&machine, "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n", in: 4096)
            == .answer(HTTPReply(status: 200, fields: [("Content-Length", "20")]), keepAlive: true))
    }
}
