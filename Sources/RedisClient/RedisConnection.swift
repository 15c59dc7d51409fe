import Sockets
import TLS
import Timers

/// A connection to one Redis server on an event loop, which it never blocks: commands are pipelined, each request
/// answered (or failed in words) within `deadline`, and the connect is a `Dial` (only a host name's lookup runs on a
/// thread of its own). `RedisMachine` decides; this carries its actions out. Made and used on the loop's thread only;
/// completions are called there.
public final class RedisConnection {
    public let address: RedisAddress
    private let loop: EventLoop
    private var machine: RedisMachine
    private var link = Link.none
    /// The oldest request's deadline: a request outlives a connection (its time counts the connect), so its deadline is
    /// kept here, not by the socket's `LoopConnection`.
    private var timer: (EventLoop.Timer, ContinuousClock.Instant)?
    /// A flush is handed to the loop: what is asked in this turn goes out in one write after it.
    private var flushPlanned = false
    /// A stopping owner's `close(within:then:)`, called once nothing waits.
    private var whenAnswered: (() -> Void)?
    private var scratch = [UInt8](repeating: 0, count: Socket.receiveSize)

    private enum Link {
        case none
        case dialing(Dial)
        case open(LoopConnection)
    }

    public init(address: RedisAddress, loop: EventLoop, deadline: Duration) {
        self.address = address
        self.loop = loop
        machine = RedisMachine(address: address, deadline: deadline)
    }

    /// Sends the commands together, behind whatever waits, and calls `completion` with their answers in order (a
    /// server's `-ERR` is an answer, `.error`) or why there are none.
    public func send(_ commands: [[String]], completion: @escaping (Result<[RESPValue], RedisError>) -> Void) {
        perform(machine.ask(commands, now: .now, completion: completion))
    }

    /// For an owner that is stopping: what waits is answered, or failed once `limit` has passed, while the loop keeps
    /// turning; then the connection closes and `done` is called, on the loop.
    public func close(within limit: Duration, then done: @escaping () -> Void) {
        guard machine.nextDeadline != nil else {
            close("closed by its owner")
            return done()
        }
        let timer = loop.schedule(at: .now + limit) { [self] in
            close("\(address) did not answer within \(limit), as its owner stopped")
        }
        whenAnswered = { [self] in
            loop.cancel(timer)
            close("closed by its owner")
            done()
        }
    }

    /// Fails every waiting request with `why` and closes the connection.
    public func close(_ why: String) { perform(machine.close(why)) }

    // MARK: The loop's thread

    private func perform(_ actions: [RedisMachine.Action]) {
        for action in actions {
            switch action {
            case .connect(let attempt): connect(attempt)
            case .disconnect: disconnect()
            case .answer(let completion, let result): completion(result)
            }
        }
        if machine.nextDeadline == nil, let answered = whenAnswered {
            whenAnswered = nil
            return answered()
        }
        settle()
    }

    /// Arms the oldest request's deadline, plans a flush for what was asked, and waits for what the wire needs.
    private func settle() {
        if let due = machine.nextDeadline, timer.map({ $0.1 > due }) ?? true {
            if let (armed, _) = timer { loop.cancel(armed) }
            timer = (loop.schedule(at: due) { [self] in
                timer = nil
                perform(machine.tick(now: .now))
            }, due)
        }
        if machine.hasUnsent, !flushPlanned {
            flushPlanned = true
            let bound = LoopBound(self, on: loop)
            loop.execute {
                bound.value.flushPlanned = false
                bound.value.flushNow()
            }
        }
        if case .open(let connection) = link { connection.wait(for: connection.wire.queued > 0 ? [.read, .write] : .read) }
    }

    private func connect(_ attempt: Int) {
        let dial = Dial.start(host: address.host, port: address.port, on: loop, until: .now + machine.deadline) { [self] result in
            dialed(attempt, result)
        }
        // A dial that failed at once has been answered already.
        if case .none = link, machine.phase == .connecting(attempt: attempt) { link = .dialing(dial) }
    }

    private func dialed(_ attempt: Int, _ result: Result<Socket, SocketError>) {
        guard machine.phase == .connecting(attempt: attempt) else {
            if case .success(let socket) = result { socket.close() }
            return
        }
        switch result {
        case .failure(let error):
            link = .none
            perform(machine.failed(attempt: attempt, error.reason))
        case .success(let socket):
            let wire = Wire(socket)
            // The requests keep their own deadlines: none is armed on the connection.
            link = .open(LoopConnection(wire, on: loop, ready: { [self] readiness in ready(wire, readiness) }, deadline: {}))
            machine.connected(attempt: attempt)
            flushNow()
        }
    }

    private func ready(_ wire: Wire, _ readiness: EventLoop.Readiness) {
        if readiness.writable { write(wire) }
        if readiness.readable { read(wire) }
    }

    private func isCurrent(_ wire: Wire) -> Bool {
        if case .open(let connection) = link { connection.wire === wire } else { false }
    }

    /// Takes what was asked for the wire and sends what the socket takes.
    private func flushNow() {
        guard case .open(let connection) = link else { return }
        let wire = connection.wire
        try? wire.queue(machine.takeUnsent())  // plain: it does not throw
        write(wire)
    }

    private func write(_ wire: Wire) {
        guard isCurrent(wire) else { return }
        if case .failed = wire.flush() { return perform(machine.failed("broke")) }
        settle()
    }

    private func read(_ wire: Wire) {
        guard isCurrent(wire) else { return }
        switch wire.receive(scratch: &scratch) {
        case .nothing: return
        case .data(let bytes), .secured(let bytes): perform(machine.received(bytes))
        case .ended(let bytes):
            if !bytes.isEmpty { perform(machine.received(bytes)) }
            if isCurrent(wire) { perform(machine.failed("was closed by the server")) }
        case .refused(let failure): perform(machine.failed("broke: \(failure)"))
        }
    }

    private func disconnect() {
        switch link {
        case .dialing(let dial): dial.cancel()
        case .open(let connection): connection.close()
        case .none: break
        }
        link = .none
    }
}
