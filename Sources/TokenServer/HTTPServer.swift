import Foundation
import HTTP1
import Sockets
import Synchronization
#if canImport(Glibc)
import Glibc
import Timers
#endif

/// An HTTP/1.1 server on plain sockets: one thread accepts, and a few worker threads (one per core) serve the
/// connections, each its own share, with poll(2) and non-blocking sockets. Blocking calls never touch Swift's
/// cooperative pool, a slow client holds up nobody, and no more threads compete for the cores than there are
/// cores. The number of connections is bounded and every read and write has a deadline. The handler runs on the
/// worker thread, between the other connections' requests, so it must compute and not wait (the token routes do).
final class HTTPServer: Sendable {
    struct Limits: Sendable {
        /// Lowered at start to what the open-file limit leaves room for (`FileLimit`).
        var maxConnections = 256
        /// One client address may hold this many of them; a client opening more gets 503 like any over the limit.
        var maxConnectionsPerAddress = 64
        /// A request must arrive whole within this long of its first byte.
        var requestDeadline: Duration = .seconds(10)
        /// A kept-alive connection with no request for this long is closed.
        var idleTimeout: Duration = .seconds(30)
        /// Stopping waits this long for requests under way.
        var drainTimeout: Duration = .seconds(2)
        /// An answer the client does not take any of for this long is dropped with its connection.
        var sendTimeout: Duration = .seconds(5)
        /// After answering with `Connection: close`, the server stops sending and reads (and drops) what the
        /// client still sends for up to this long before closing: closing with unread bytes would reset the
        /// connection and could destroy the answer before the client reads it.
        var lingerTimeout: Duration = .seconds(2)
        /// Threads serving connections; 0 for one per active core.
        var workers = 0
    }

    typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    typealias Logger = @Sendable (HTTPRequest?, HTTPResponse, Duration) -> Void

    private struct State {
        /// Each open connection's client address.
        var open: [Int32: String] = [:]
        /// How many connections each client address has open.
        var perAddress: [String: Int] = [:]
        var stopping = false
    }

    /// The numeric address it listens on (`0.0.0.0` for every IPv4 interface).
    let host: String
    let port: UInt16
    /// The soft limit on open files, after raising it towards what `limits.maxConnections` needs.
    let openFileLimit: Int
    private let listener: Socket
    private let limits: Limits
    private let handler: Handler
    private let log: Logger?
    private let state = Mutex(State())
    /// `state.stopping`, readable without the lock: workers look at it on every request.
    private let stopping = Atomic(false)
    /// Connections with a request under way: read in part or whole, or answered but not yet sent.
    private let busy = Atomic(0)
    private let acceptorDone = Atomic(false)
    private let workers: [Worker]

    init(host: String, port: UInt16, limits: Limits = Limits(), log: Logger?, handler: @escaping Handler) throws(SocketError) {
        signal(SIGPIPE, SIG_IGN)
        (listener, self.host, self.port) = try Socket.listen(host: host, port: port)
        openFileLimit = FileLimit.raiseSoftLimit(toFit: limits.maxConnections)
        var limits = limits
        limits.maxConnections = FileLimit.connections(limits.maxConnections, openFiles: openFileLimit)
        self.limits = limits
        self.handler = handler
        self.log = log
        let count = limits.workers > 0 ? limits.workers : min(max(ProcessInfo.processInfo.activeProcessorCount, 1), 16)
        var workers: [Worker] = []
        for _ in 0..<count {
            do {
                workers.append(try Worker())
            } catch {
                listener.close()
                throw error
            }
        }
        self.workers = workers
        for (index, worker) in workers.enumerated() {
            let thread = Thread { [self] in run(worker) }
            thread.name = "http-worker-\(index)"
            thread.start()
        }
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "http-accept"
        thread.start()
    }

    /// Stops accepting, lets requests under way finish (up to the drain timeout), closes the rest.
    func stop() {
        let alreadyStopping = state.withLock { state in
            defer { state.stopping = true }
            stopping.store(true, ordering: .sequentiallyConsistent)
            return state.stopping
        }
        guard !alreadyStopping else { return }
        listener.shutdownBoth()
        // Idle connections are closed at once; the workers need not wait out their poll.
        for worker in workers { worker.wake() }
        let clock = ContinuousClock()
        let deadline = clock.now + limits.drainTimeout
        while clock.now < deadline,
              !(busy.load(ordering: .sequentiallyConsistent) == 0 && acceptorDone.load(ordering: .sequentiallyConsistent)) {
            Thread.sleep(forTimeInterval: 0.005)
        }
        // Under the lock, so that no descriptor is shut down after its worker closed it (and it was reused).
        state.withLock { state in
            for fd in state.open.keys { shutdown(fd, Int32(SHUT_RDWR)) }
        }
        while clock.now < deadline + .milliseconds(500), !(state.withLock { $0.open.isEmpty }) {
            Thread.sleep(forTimeInterval: 0.005)
        }
        listener.close()
    }

    /// Connections open now.
    var connectionCount: Int { state.withLock { $0.open.count } }

    /// Connections served at once: the limit asked for, or less when the open-file limit has no room for it.
    var maxConnections: Int { limits.maxConnections }

    private var isStopping: Bool { stopping.load(ordering: .relaxed) }

    private func acceptLoop() {
        defer {
            acceptorDone.store(true, ordering: .sequentiallyConsistent)
            for worker in workers { worker.wake() }
        }
        var next = 0
        while !isStopping {
            // Stopping shuts the listener down, which wakes this poll; the timeout is only a safety net.
            guard listener.waitReadable(milliseconds: 1000), !isStopping else { continue }
            let client: Socket, address: String
            switch listener.accept() {
            case .client(let socket, let from): (client, address) = (socket, from)
            case .none: continue
            case .outOfDescriptors:
                // The waiting client keeps the listener readable: polling it again at once would spin.
                Thread.sleep(forTimeInterval: 0.1)
                continue
            }
            if let refusal = admit(client, from: address) {
                let busy = HTTPResponse.error(503, refusal, headers: [("Retry-After", "1")])
                client.send(busy.serialized(keepAlive: false))
                log?(nil, busy, .zero)
                client.close()
                continue
            }
            workers[next].hand(client)
            next = (next + 1) % workers.count
        }
    }

    /// Counts the connection in; the reason when it is over a limit.
    private func admit(_ client: Socket, from address: String) -> String? {
        state.withLock { state -> String? in
            if state.stopping { return "the server is stopping" }
            guard state.open.count < limits.maxConnections else {
                return "the server is at its limit of \(limits.maxConnections) connections; retry shortly"
            }
            let held = state.perAddress[address, default: 0]
            guard held < limits.maxConnectionsPerAddress else {
                return "\(address) has \(held) connections open, the most one address may; reuse or close one, or retry shortly"
            }
            state.open[client.fd] = address
            state.perAddress[address] = held + 1
            return nil
        }
    }

    // MARK: Workers

    /// What the acceptor shares with one worker thread: new connections.
    private typealias Worker = Mailbox<Socket>

    /// One connection, owned by the worker thread that serves it.
    private final class Connection {
        let socket: Socket
        /// Received bytes not yet used.
        var buffer: [UInt8] = []
        /// The request being read: its head and body so far.
        var requests = RequestParser()
        /// When the request under way started arriving; nil between requests.
        var requestStarted: ContinuousClock.Instant?
        /// An answer not yet sent in full, and how much of it was.
        var output: [UInt8] = []
        var sent = 0
        /// When the client last took some of `output`.
        var lastProgress: ContinuousClock.Instant
        /// Since when the connection has had nothing to do.
        var idleSince: ContinuousClock.Instant
        /// Close once `output` is sent.
        var closeAfterSending = false
        /// Sending is over; what arrives is dropped until the client closes or this instant passes.
        var lingersUntil: ContinuousClock.Instant?
        var closed = false
        /// Whether this connection is counted in `busy`.
        var countedBusy = false
        /// Who has the connection once `output` (a 101) is sent.
        var takeover: Takeover?

        init(_ socket: Socket, now: ContinuousClock.Instant) {
            self.socket = socket
            lastProgress = now
            idleSince = now
        }

        var isSending: Bool { sent < output.count }
        var isBusy: Bool { requestStarted != nil || isSending }
    }

    private func run(_ worker: Worker) {
        let clock = ContinuousClock()
        var connections: [Connection] = []
        // Entry 0 is the wake pipe; entry i + 1 is connections[i].
        var polled = [pollfd(fd: worker.wakeRead, events: Int16(POLLIN), revents: 0)]
        var scratch = [UInt8](repeating: 0, count: Socket.receiveSize)
        while true {
            for (index, connection) in connections.enumerated() {
                polled[index + 1].events = Int16(connection.isSending ? POLLOUT : POLLIN)
                polled[index + 1].revents = 0
            }
            polled[0].revents = 0
            let ready = poll(&polled, nfds_t(polled.count), pollTimeout(connections, clock: clock))
            if ready > 0 {
                for (index, connection) in connections.enumerated() where polled[index + 1].revents != 0 {
                    service(connection, scratch: &scratch, clock: clock)
                }
            }
            for socket in ready > 0 && polled[0].revents != 0 ? worker.takeNew() : [] {
                socket.makeNonBlocking()
                connections.append(Connection(socket, now: clock.now))
                polled.append(pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0))
            }
            let now = clock.now
            for connection in connections where !connection.closed {
                checkTimes(connection, now: now, clock: clock)
            }
            if connections.contains(where: \.closed) {
                var index = 0
                while index < connections.count {
                    if connections[index].closed {
                        connections.swapAt(index, connections.count - 1)
                        polled.swapAt(index + 1, polled.count - 1)
                        connections.removeLast()
                        polled.removeLast()
                    } else {
                        index += 1
                    }
                }
            }
            if connections.isEmpty, isStopping, acceptorDone.load(ordering: .sequentiallyConsistent), !worker.hasNew {
                return
            }
        }
    }

    /// How long a worker may sleep in poll: until its connections' first deadline, or until woken when it has none
    /// (an idle server wakes up for nothing).
    private func pollTimeout(_ connections: [Connection], clock: ContinuousClock) -> Int32 {
        guard !connections.isEmpty else { return -1 }
        guard !isStopping else { return 100 }
        let now = clock.now
        var next = now + .seconds(1)
        for connection in connections where !connection.closed { next = min(next, deadline(of: connection)) }
        return Int32(clamping: max(0, (next - now).wholeMilliseconds + 1))
    }

    /// Acts on what poll reported for one connection (readable, writable, closed or failed: each shows in the
    /// receive or the send it makes).
    private func service(_ connection: Connection, scratch: inout [UInt8], clock: ContinuousClock) {
        if connection.lingersUntil != nil {
            connection.buffer.removeAll(keepingCapacity: true)
            if case .closed = connection.socket.receive(appendingTo: &connection.buffer, scratch: &scratch) { close(connection) }
            connection.buffer.removeAll(keepingCapacity: true)
            return
        } else if connection.isSending {
            send(connection, clock: clock)
        } else {
            switch connection.socket.receive(appendingTo: &connection.buffer, scratch: &scratch) {
            case .received: break
            case .nothingYet: return
            case .closed: return close(connection)
            }
        }
        answerWhatArrived(connection, clock: clock)
    }

    /// Answers each whole request in the buffer, in order, until one is incomplete or an answer cannot be sent at once.
    private func answerWhatArrived(_ connection: Connection, clock: ContinuousClock) {
        while !connection.closed, !connection.isSending, !connection.buffer.isEmpty {
            if connection.requestStarted == nil {
                connection.requestStarted = clock.now
                updateBusy(connection)
            }
            let started = connection.requestStarted!
            switch connection.requests.read(connection.buffer) {
            case .needMore:
                connection.buffer.removeAll(keepingCapacity: true)
                return
            case .refused(let refusal):
                respond(.error(refusal.status, refusal.message), on: connection, for: nil, started: started, keepAlive: false,
                        clock: clock)
            case .request(let request, let consumed):
                if consumed == connection.buffer.count {
                    connection.buffer.removeAll(keepingCapacity: true)
                } else {
                    connection.buffer.removeFirst(consumed)
                }
                let keepAlive = request.keepAlive && !isStopping
                respond(handler(request), on: connection, for: request, started: started, keepAlive: keepAlive, clock: clock)
            }
        }
        if !connection.closed, !connection.isBusy { connection.idleSince = clock.now }
    }

    private func respond(_ response: HTTPResponse, on connection: Connection, for request: HTTPRequest?,
                         started: ContinuousClock.Instant, keepAlive: Bool, clock: ContinuousClock) {
        log?(request, response, clock.now - started)
        connection.requestStarted = nil
        connection.output = response.serialized(keepAlive: keepAlive, withBody: request?.method != "HEAD")
        connection.sent = 0
        connection.lastProgress = clock.now
        connection.closeAfterSending = !keepAlive
        connection.takeover = response.takeover
        send(connection, clock: clock)
    }

    /// Sends what the socket takes of the answer; closes the connection when it is done and should close.
    private func send(_ connection: Connection, clock: ContinuousClock) {
        switch connection.socket.sendSome(connection.output, from: connection.sent) {
        case .sent(let count):
            connection.sent += count
            connection.lastProgress = clock.now
        case .full:
            break
        case .failed:
            return close(connection)
        }
        if connection.isSending {
            updateBusy(connection)
            return
        }
        connection.output.removeAll(keepingCapacity: true)
        connection.sent = 0
        if let takeover = connection.takeover { return handOver(connection, to: takeover) }
        if connection.closeAfterSending { return linger(connection, clock: clock) }
        updateBusy(connection)
    }

    /// Enforces the request deadline, the send timeout, the idle timeout and stopping.
    private func checkTimes(_ connection: Connection, now: ContinuousClock.Instant, clock: ContinuousClock) {
        let idle = connection.lingersUntil == nil && !connection.isBusy
        guard now >= deadline(of: connection) || (idle && isStopping) else { return }
        if connection.lingersUntil == nil, !connection.isSending, let started = connection.requestStarted {
            respond(.error(408, "the request did not arrive whole within \(limits.requestDeadline)"), on: connection,
                    for: nil, started: started, keepAlive: false, clock: clock)
        } else {
            close(connection)
        }
    }

    /// When the connection's current wait runs out: lingering, an answer the client does not take, a request not
    /// arriving whole, or idleness.
    private func deadline(of connection: Connection) -> ContinuousClock.Instant {
        if let lingersUntil = connection.lingersUntil { return lingersUntil }
        if connection.isSending { return connection.lastProgress + limits.sendTimeout }
        if let started = connection.requestStarted { return started + limits.requestDeadline }
        return connection.idleSince + limits.idleTimeout
    }

    private func updateBusy(_ connection: Connection) {
        let isBusy = connection.isBusy && !connection.closed
        guard isBusy != connection.countedBusy else { return }
        connection.countedBusy = isBusy
        if isBusy { busy.add(1, ordering: .sequentiallyConsistent) } else { busy.subtract(1, ordering: .sequentiallyConsistent) }
    }

    /// Half-closes after the last answer: the client reads it and then the end of the stream, even if it is still
    /// sending.
    private func linger(_ connection: Connection, clock: ContinuousClock) {
        connection.requestStarted = nil
        updateBusy(connection)
        // While stopping too: stop() ends lingering connections with its final shutdown, after the answers are out.
        guard limits.lingerTimeout > .zero else { return close(connection) }
        shutdown(connection.socket.fd, Int32(SHUT_WR))
        connection.buffer.removeAll()
        connection.lingersUntil = clock.now + limits.lingerTimeout
    }

    private func close(_ connection: Connection) {
        guard !connection.closed else { return }
        connection.closed = true
        updateBusy(connection)
        forget(connection.socket)
    }

    /// Uncounts the socket and closes it.
    private func forget(_ socket: Socket) {
        state.withLock { state in
            guard let address = state.open.removeValue(forKey: socket.fd) else { return }
            let held = state.perAddress[address, default: 1] - 1
            state.perAddress[address] = held > 0 ? held : nil
        }
        socket.close()
    }

    /// Leaves the connection to `takeover` (after its 101 is sent); it stays counted until the new owner closes it.
    private func handOver(_ connection: Connection, to takeover: Takeover) {
        connection.closed = true
        updateBusy(connection)
        let socket = connection.socket
        let address = state.withLock { $0.open[socket.fd] } ?? "?"
        takeover.adopt(socket, connection.buffer, address, { [self] in forget(socket) })
    }
}
