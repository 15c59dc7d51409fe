import HTTP1

/// One HTTP/1.1 server connection as a value: events (bytes arrived, bytes sent, a deadline passed, stopping) change
/// its phase and return what the loop must do next. It reads no socket and keeps no clock, so every transition is
/// tested as plain values.
struct HTTPConnectionMachine {
    /// A time as how long after `origin` it is. `ContinuousClock.Instant` is resilient, opaque to this module, so each
    /// copy and switch of a phase or an action holding one was a runtime call; a `Duration` is two integers. Events
    /// take instants and convert once.
    typealias Moment = Duration
    static let origin = ContinuousClock.now
    static func moment(_ instant: ContinuousClock.Instant) -> Moment { instant - origin }
    static func instant(_ moment: Moment) -> ContinuousClock.Instant { origin + moment }

    struct Times: Sendable {
        /// A request must arrive whole within this long of its first byte (and a TLS handshake within this long).
        var requestDeadline: Duration
        /// A kept-alive connection with no request for this long is closed.
        var idleTimeout: Duration
        /// An answer the client does not take any of for this long is dropped with its connection.
        var sendTimeout: Duration
        /// After an answer with `Connection: close`, what still arrives is read and dropped for this long.
        var lingerTimeout: Duration
    }

    enum Phase {
        /// The TLS handshake is under way; it must finish by `until`.
        case handshaking(until: Moment)
        /// Between requests, since `since`.
        case idle(since: Moment)
        /// A request has begun arriving at `started`.
        case receiving(started: Moment)
        /// An answer is going out; the client last took some of it at `progress`.
        case sending(progress: Moment, then: AfterSending)
        /// Sending is over; what arrives is dropped until the client closes or `until` passes.
        case lingering(until: Moment)
        case closed
    }

    /// What follows an answer once it is out.
    enum AfterSending {
        /// The next request (kept alive).
        case next
        /// Lingering, then closing (`Connection: close`).
        case close
        /// The connection is another's (after a 101).
        case handOver(Takeover)
    }

    /// `read` also sends what is queued (a TLS handshake's bytes); `write` sends the answer and reads nothing until it
    /// is out, so a client that pipelines and does not read its answers is not read from either; `readOnly` reads and
    /// sends nothing more (lingering: the sending side is shut).
    enum Waiting: Equatable { case read, write, readOnly }

    enum Action {
        /// Run the handler for this request, then `respond`.
        case serve(HTTPRequest, started: Moment)
        /// Answer with this refusal, then `respond` (no request was read whole).
        case refuse(HTTPResponse, started: Moment)
        /// Queue these bytes for the client and send what the socket takes, then `sent`.
        case send([UInt8])
        /// Wait for the socket until the deadline (then `deadlinePassed`).
        case wait(Waiting, until: Moment)
        /// Stop sending (half-close), keep reading and dropping until the deadline.
        case linger(until: Moment)
        case close
        /// Give the connection and the bytes after the request to `Takeover`.
        case handOver(Takeover, leftover: [UInt8])
    }

    private(set) var phase: Phase
    /// Received bytes not yet used.
    private(set) var buffer: [UInt8] = []
    /// The request being read, from the bytes of `buffer` handed to it.
    private var requests = RequestParser()
    /// Where each answer is written, its room kept from one to the next (up to `keptAnswerRoom`).
    private var answer: [UInt8] = []
    static let keptAnswerRoom = 16 * 1024
    /// The most `buffer` keeps while an answer is pending: what a read brought with the request before it (the loop
    /// reads nothing more until the answer is out). Bytes past it close the connection.
    static let maxHeldWhileSending = 64 * 1024
    let times: Times

    /// A new connection: waiting for its first request, or first for its TLS handshake.
    init(now instant: ContinuousClock.Instant, times: Times, handshaking: Bool) {
        let now = Self.moment(instant)
        self.times = times
        phase = handshaking ? .handshaking(until: now + times.requestDeadline) : .idle(since: now)
    }

    /// Whether a request is under way: read in part or whole, or answered but not yet sent.
    var isBusy: Bool {
        switch phase {
        case .receiving, .sending: true
        default: false
        }
    }

    /// Whether the loop reads the socket now: not while an answer is pending (what a read brought with the request
    /// before it waits in `buffer`, up to `maxHeldWhileSending`), nor once closed.
    var reads: Bool {
        switch phase {
        case .sending, .closed: false
        default: true
        }
    }

    /// What to do first.
    func start() -> Action {
        switch phase {
        case .handshaking(let until): .wait(.read, until: until)
        case .idle(let since): .wait(.read, until: since + times.idleTimeout)
        default: .close
        }
    }

    mutating func handshakeFinished(now instant: ContinuousClock.Instant) -> Action {
        let now = Self.moment(instant)
        guard case .handshaking = phase else { return waiting() }
        phase = .idle(since: now)
        return next(now: now)
    }

    /// Bytes (plaintext, perhaps none) arrived from the client; while lingering they are dropped.
    mutating func received(_ bytes: [UInt8], now instant: ContinuousClock.Instant) -> Action {
        let now = Self.moment(instant)
        switch phase {
        case .closed: return .close
        case .lingering(let until): return .wait(.readOnly, until: until)
        case .handshaking: return waiting()
        case .sending:
            guard buffer.count + bytes.count <= Self.maxHeldWhileSending else {
                phase = .closed
                buffer = []
                return .close
            }
            buffer += bytes  // pipelined: read once the answer is out
            return waiting()
        case .idle, .receiving:
            buffer += bytes
            return next(now: now)
        }
    }

    /// The client closed its side, or the connection broke.
    mutating func peerClosed() -> Action {
        phase = .closed
        return .close
    }

    /// The answer to the request under way (`request` nil for a refusal), with the `Date` field line `date`;
    /// `keepAlive` false closes after it.
    mutating func respond(_ response: HTTPResponse, to request: HTTPRequest?, keepAlive: Bool, date: [UInt8] = [],
                          now instant: ContinuousClock.Instant) -> Action {
        let now = Self.moment(instant)
        guard case .receiving = phase else { return waiting() }
        let then: AfterSending = response.takeover.map { .handOver($0) } ?? (keepAlive ? .next : .close)
        phase = .sending(progress: now, then: then)
        if answer.capacity > Self.keptAnswerRoom { answer = [] } else { answer.removeAll(keepingCapacity: true) }
        response.write(keepAlive: keepAlive, withBody: request?.method != "HEAD", date: date, to: &answer)
        return .send(answer)
    }

    /// The socket took bytes of the answer (`progressed`), and now everything queued is out or not (`allOut`).
    mutating func sent(allOut: Bool, progressed: Bool, now instant: ContinuousClock.Instant) -> Action {
        let now = Self.moment(instant)
        guard case .sending(let progress, let then) = phase else { return waiting() }
        guard allOut else {
            let last = progressed ? now : progress
            phase = .sending(progress: last, then: then)
            return .wait(.write, until: last + times.sendTimeout)
        }
        switch then {
        case .next:
            phase = .idle(since: now)
            return next(now: now)
        case .close:
            buffer = []
            guard times.lingerTimeout > .zero else {
                phase = .closed
                return .close
            }
            phase = .lingering(until: now + times.lingerTimeout)
            return .linger(until: now + times.lingerTimeout)
        case .handOver(let takeover):
            phase = .closed
            defer { buffer = [] }
            return .handOver(takeover, leftover: buffer)
        }
    }

    /// A deadline the loop was asked to wait until came (or a later one: the phase's own is checked).
    mutating func deadlinePassed(now instant: ContinuousClock.Instant) -> Action {
        let now = Self.moment(instant)
        switch phase {
        case .handshaking(let until) where now >= until,
             .idle(let until) where now >= until + times.idleTimeout,
             .lingering(let until) where now >= until:
            phase = .closed
            return .close
        case .sending(let progress, _) where now >= progress + times.sendTimeout:
            phase = .closed
            return .close
        case .receiving(let started) where now >= started + times.requestDeadline:
            return .refuse(.error(408, "the request did not arrive whole within \(times.requestDeadline)"), started: started)
        default:
            return waiting()
        }
    }

    /// The server is stopping: an idle connection (or one still in its handshake) closes now; the others finish
    /// what is under way (nil: nothing changes).
    mutating func stopping() -> Action? {
        switch phase {
        case .idle, .handshaking:
            phase = .closed
            return .close
        default:
            return nil
        }
    }

    /// Reads the next request in the buffer, if there is one.
    private mutating func next(now: Moment) -> Action {
        guard !buffer.isEmpty else { return waiting() }
        let started: Moment
        switch phase {
        case .idle:
            started = now
            phase = .receiving(started: now)
        case .receiving(let since): started = since
        default: return waiting()
        }
        switch requests.read(buffer[...]) {
        case .needMore:
            buffer.removeAll(keepingCapacity: true)  // the parser keeps what it has read
            return waiting()
        case .refused(let refusal):
            buffer = []
            return .refuse(.error(refusal.status, refusal.message), started: started)
        case .request(let request, let consumed):
            if consumed == buffer.count {
                buffer.removeAll(keepingCapacity: true)
            } else {
                buffer.removeFirst(consumed)
            }
            return .serve(request, started: started)
        }
    }

    /// What the phase waits for, and until when.
    private func waiting() -> Action {
        switch phase {
        case .handshaking(let until): .wait(.read, until: until)
        case .idle(let since): .wait(.read, until: since + times.idleTimeout)
        case .receiving(let started): .wait(.read, until: started + times.requestDeadline)
        case .sending(let progress, _): .wait(.write, until: progress + times.sendTimeout)
        case .lingering(let until): .wait(.readOnly, until: until)
        case .closed: .close
        }
    }
}
