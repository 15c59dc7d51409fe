import Dispatch
import Sockets
import TLS

/// A connection to one Redis server on an event loop, which it never blocks: commands are pipelined, each request
/// answered (or failed in words) within `deadline`, the connect is non-blocking and registered on the loop, and only
/// a host name's lookup runs on a thread of its own. `RedisMachine` decides; this carries its actions out. Made on
/// any thread, then used on the loop's thread only; completions are called there.
public final class RedisConnection: @unchecked Sendable {
    public let address: RedisAddress
    private let loop: EventLoop
    /// The address when the host is written as one, which needs no lookup.
    private let literal: Socket.Address?
    private var machine: RedisMachine
    private var link = Link.none
    private var timer: (EventLoop.Timer, ContinuousClock.Instant)?
    /// A flush is handed to the loop: what is asked in this turn goes out in one write after it.
    private var flushPlanned = false
    /// A name lookup runs on its thread; the attempt waiting when it ends takes its answer.
    private var lookingUp = false
    private var scratch = [UInt8](repeating: 0, count: Socket.receiveSize)

    private enum Link {
        case none
        case resolving(attempt: Int)
        case connecting(attempt: Int, Socket, EventLoop.Registration, rest: [Socket.Address])
        case open(Wire, EventLoop.Registration, EventLoop.Interest)
    }

    public init(address: RedisAddress, loop: EventLoop, deadline: Duration) {
        self.address = address
        self.loop = loop
        literal = Socket.literalAddress(host: address.host, port: address.port)
        machine = RedisMachine(address: address, deadline: deadline)
    }

    deinit { if let socket { socket.close() } }

    /// Sends the commands together, behind whatever waits, and calls `completion` with their answers in order (a
    /// server's `-ERR` is an answer, `.error`) or why there are none.
    public func send(_ commands: [[String]], completion: @escaping (Result<[RESPValue], RedisError>) -> Void) {
        perform(machine.ask(commands, now: .now, completion: completion))
    }

    /// For a loop that is stopping: sends what waits and reads the answers, blocking the loop's thread for at most
    /// `limit`, then closes; what is still unanswered fails.
    public func finish(within limit: Duration) {
        let end = ContinuousClock.now + limit
        while machine.nextDeadline != nil {
            let left = end - .now
            guard left > .zero else { break }
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            switch link {
            case .open(let wire, _, _):
                if machine.hasUnsent { flushNow() }
                if wire.queued > 0 {
                    if wire.socket.waitWritable(milliseconds: milliseconds) { write(wire) }
                } else if wire.socket.waitReadable(milliseconds: milliseconds) {
                    read(wire)
                }
            case .connecting(let attempt, let socket, _, _):
                if socket.waitWritable(milliseconds: milliseconds) { connectEnded(attempt) }
            case .none, .resolving:
                return close("the loop stopped while the name of \(address) was looked up")
            }
        }
        close("\(address) did not answer within \(limit), as the loop stopped")
    }

    /// Fails every waiting request with `why` and closes the connection.
    public func close(_ why: String) { perform(machine.close(why)) }

    // MARK: The loop's thread

    private var socket: Socket? {
        switch link {
        case .connecting(_, let socket, _, _): socket
        case .open(let wire, _, _): wire.socket
        case .none, .resolving: nil
        }
    }

    private func perform(_ actions: [RedisMachine.Action]) {
        for action in actions {
            switch action {
            case .connect(let attempt): connect(attempt)
            case .disconnect: disconnect()
            case .answer(let completion, let result): completion(result)
            }
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
            loop.execute { [self] in
                flushPlanned = false
                flushNow()
            }
        }
        if case .open(let wire, let registration, let interest) = link {
            let wanted: EventLoop.Interest = wire.queued > 0 ? [.read, .write] : .read
            if wanted != interest {
                loop.change(registration, to: wanted)
                link = .open(wire, registration, wanted)
            }
        }
    }

    private func connect(_ attempt: Int) {
        if let literal { return tryConnecting(attempt, to: [literal], failure: nil) }
        link = .resolving(attempt: attempt)
        // One lookup at a time: a resolver slower than the deadline would otherwise gain a blocked thread per attempt.
        guard !lookingUp else { return }
        lookingUp = true
        let (host, port) = (address.host, address.port)
        DispatchQueue.global().async { [self, loop] in
            let found = Result { () throws(SocketError) in try Socket.addresses(host: host, port: port) }
            loop.execute { [self] in
                lookingUp = false
                guard case .resolving(let current) = link else { return }
                link = .none
                switch found {
                case .success(let addresses): tryConnecting(current, to: addresses, failure: nil)
                case .failure(let error): perform(machine.failed(attempt: current, error.description))
                }
            }
        }
    }

    /// Starts a connect to the first of `addresses` that takes one; the others are tried if it fails.
    private func tryConnecting(_ attempt: Int, to addresses: [Socket.Address], failure: SocketError?) {
        var rest = addresses[...]
        var failure = failure
        while let next = rest.popFirst() {
            do throws(SocketError) {
                let socket = try Socket.startConnecting(to: next)
                let registration = loop.register(socket.fd, for: .write) { [self] _ in connectEnded(attempt) }
                link = .connecting(attempt: attempt, socket, registration, rest: Array(rest))
                return
            } catch {
                failure = error
            }
        }
        link = .none
        perform(machine.failed(attempt: attempt, failure?.reason ?? "no address"))
    }

    private func connectEnded(_ attempt: Int) {
        guard case .connecting(attempt, let socket, let registration, let rest) = link else { return }
        if let failure = socket.connectFailure() {
            loop.deregister(registration)
            socket.close()
            return tryConnecting(attempt, to: rest, failure: failure)
        }
        let wire = Wire(socket)
        loop.deregister(registration)
        let reading = loop.register(socket.fd, for: .read) { [self, wire] readiness in ready(wire, readiness) }
        link = .open(wire, reading, .read)
        machine.connected(attempt: attempt)
        flushNow()
    }

    private func ready(_ wire: Wire, _ readiness: EventLoop.Readiness) {
        if readiness.writable { write(wire) }
        if readiness.readable { read(wire) }
    }

    private func isCurrent(_ wire: Wire) -> Bool {
        if case .open(let current, _, _) = link { current === wire } else { false }
    }

    /// Takes what was asked for the wire and sends what the socket takes.
    private func flushNow() {
        guard case .open(let wire, _, _) = link else { return }
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
        case .connecting(_, let socket, let registration, _):
            loop.deregister(registration)
            socket.close()
        case .open(let wire, let registration, _):
            loop.deregister(registration)
            wire.socket.close()
        case .none, .resolving: break
        }
        link = .none
    }
}
