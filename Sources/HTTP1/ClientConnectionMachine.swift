/// One client connection to a server, exchange after exchange, one at a time: it takes what happened on the
/// connection and says what to do. The answer decides whether the connection is kept for the next request (HTTP/1.1,
/// no `Connection: close`, a body not read to the close, nothing after it). No I/O: the token transport feeds it, and
/// so does the `httpclient` fuzz target.
public struct ClientConnectionMachine: Sendable {
    public enum Phase: Sendable {
        /// Open, no exchange under way; `used` once it has carried one (a kept-alive connection).
        case idle(used: Bool)
        /// The request is being written; its answer may already be arriving.
        case sending(Exchange)
        /// The request is out, its answer awaited.
        case awaiting(Exchange)
        case closed
    }

    /// One request's answer being read.
    public struct Exchange: Sendable {
        var parser: ResponseParser
        /// The connection had carried an exchange before this one.
        let reused: Bool
        /// A byte of the answer has come.
        var answered = false
    }

    /// What the connection's owner does next.
    public enum Action: Sendable, Equatable {
        /// Nothing yet: wait for the socket.
        case wait
        /// Send these bytes, then say `sent`.
        case write([UInt8])
        /// The exchange's answer. Kept alive, the connection is idle again and may carry the next request; else close it.
        case answer(HTTPReply, keepAlive: Bool)
        /// The exchange failed: close the connection.
        case fail(ResponseFailure)
        /// A kept-alive connection closed before any byte of the answer (the server let it go as the request left):
        /// close it, and send the request once more on a new connection.
        case retry
        /// Close the connection: no exchange was under way.
        case close
        /// The connection is not idle (an exchange is under way, or it is closed): nothing was sent.
        case busy
    }

    public private(set) var phase = Phase.idle(used: false)

    public init() {}

    /// Whether a request can be sent now.
    public var isIdle: Bool {
        if case .idle = phase { true } else { false }
    }

    /// Starts an exchange: `request` (its bytes, its method) and an answer of at most `bodyLimit` body bytes.
    public mutating func send(_ request: [UInt8], method: String, bodyLimit: Int) -> Action {
        guard case .idle(let used) = phase else { return .busy }
        phase = .sending(Exchange(parser: ResponseParser(bodyLimit: bodyLimit, method: method), reused: used))
        return .write(request)
    }

    /// The whole request is out.
    public mutating func sent() {
        guard case .sending(let exchange) = phase else { return }
        phase = .awaiting(exchange)
    }

    /// The server sent `bytes`.
    public mutating func received(_ bytes: ArraySlice<UInt8>) -> Action {
        switch phase {
        case .idle:
            // Nothing was asked: whatever it is (a 408 before the server hangs up), the connection is done.
            phase = .closed
            return .close
        case .closed:
            return .wait
        case .sending(var exchange), .awaiting(var exchange):
            guard !bytes.isEmpty else { return .wait }
            let whole: Bool
            if case .awaiting = phase { whole = true } else { whole = false }
            exchange.answered = true
            let parse = exchange.parser.read(bytes)
            phase = whole ? .awaiting(exchange) : .sending(exchange)
            return ended(exchange, parse, requestOut: whole)
        }
    }

    /// The server closed the connection, or it broke (a send failed).
    public mutating func closed() -> Action {
        switch phase {
        case .idle:
            phase = .closed
            return .close
        case .closed:
            return .wait
        case .sending(var exchange), .awaiting(var exchange):
            phase = .closed
            if exchange.reused && !exchange.answered { return .retry }
            let parse = exchange.parser.closed()
            return ended(exchange, parse, requestOut: false)
        }
    }

    /// The owner gives the connection up: the exchange's deadline came, its caller went, or an idle one waited too long.
    public mutating func giveUp() -> Action {
        if case .closed = phase { return .wait }
        phase = .closed
        return .close
    }

    /// The action for a parse of the exchange's answer; the phase after it.
    private mutating func ended(_ exchange: Exchange, _ parse: ResponseParse, requestOut: Bool) -> Action {
        switch parse {
        case .needMore:
            return .wait
        case .response(let reply):
            let keepAlive = requestOut && exchange.parser.leavesConnectionOpen
            phase = keepAlive ? .idle(used: true) : .closed
            return .answer(reply, keepAlive: keepAlive)
        case .failed(let failure):
            phase = .closed
            return .fail(failure)
        }
    }
}
