import Foundation
import HTTP1
import PrintableText
import Sockets
import Synchronization
import TLS
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server (https with a `TLSContext`) on event loops, one per core: the first also accepts, and hands each
/// connection to the loops in turn, where an `HTTPConnectionMachine` says what to do with it and the loop does it.
/// Blocking calls never touch Swift's cooperative pool, a slow client holds up nobody, and no more threads compete
/// for the cores than there are cores. The number of connections is bounded and every read and write has a deadline.
/// The handler runs on the loop's thread, between the other connections' requests, so it must compute and not wait
/// (the token routes do).
package final class HTTPServer: Sendable {
    package struct Limits: Sendable {
        /// Lowered at start to what the open-file limit leaves room for (`FileLimit`). When they are all open, a newcomer
        /// takes the place of an unproven one (`admit`).
        package var maxConnections = 256
        /// One client address may hold this many of them; a client opening more gets 503 like any over the limit.
        package var maxConnectionsPerAddress = 64
        /// A request must arrive whole within this long of its first byte (a TLS handshake within this long of the
        /// connection).
        package var requestDeadline: Duration = .seconds(10)
        /// A kept-alive connection with no request for this long is closed.
        package var idleTimeout: Duration = .seconds(30)
        /// Stopping waits this long for requests under way.
        package var drainTimeout: Duration = .seconds(2)
        /// An answer the client does not take any of for this long is dropped with its connection.
        package var sendTimeout: Duration = .seconds(5)
        /// After answering with `Connection: close`, the server stops sending and reads (and drops) what the
        /// client still sends for up to this long before closing: closing with unread bytes would reset the
        /// connection and could destroy the answer before the client reads it.
        package var lingerTimeout: Duration = .seconds(2)
        /// Loops serving connections; 0 for one per active core.
        package var workers = 0

        package init() {}

        var times: HTTPConnectionMachine.Times {
            .init(requestDeadline: requestDeadline, idleTimeout: idleTimeout, sendTimeout: sendTimeout, lingerTimeout: lingerTimeout)
        }
    }

    /// A loop sends its answers at the end of its turn, or once this many wait: the first of them waits for the
    /// others' work (about 10 µs each for a token), and a turn can bring hundreds of requests.
    static let answersHeld = 32

    package typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    package typealias Logger = @Sendable (HTTPRequest?, HTTPResponse, Duration) -> Void
    /// Takes a refused TLS handshake: the client's address and why.
    package typealias RefusalLogger = @Sendable (String, TLSFailure) -> Void

    private struct State {
        /// Each open connection by its id (descriptors are reused; ids are not).
        var open: [UInt64: Slot] = [:]
        /// Each client address's open connections.
        var perAddress: [String: Held] = [:]
        var lastID: UInt64 = 0
        /// Counts each time a connection becomes unproven, so that the one unproven longest is found across addresses.
        var lastUnproven: UInt64 = 0
        var stopping = false

        /// The connection (open, of this address) is unproven from now, the newest of them.
        mutating func unprove(_ id: UInt64, of address: String) {
            lastUnproven += 1
            perAddress[address]?.unproven.removeAll { $0.id == id }
            perAddress[address]?.unproven.append((id, since: lastUnproven))
        }
    }

    /// An open connection as the count sees it.
    private struct Slot {
        let address: String
        var owner: Owner
    }

    /// Who closes a connection the server needs the place of.
    private enum Owner {
        /// The loop of `workers` at this index.
        case worker(Int)
        /// What took it over after a 101 (`Takeover.evict`).
        case takenOver(@Sendable (UInt64) -> Void)
    }

    /// One address's connections: how many, and those not proven (`prove`) with when they became so, longest unproven
    /// first.
    private struct Held {
        var count = 0
        var unproven: [(id: UInt64, since: UInt64)] = []
    }

    /// What `admit` decided.
    private enum Admission {
        /// Counted in under this id; the server was full, and the connection in `evicting` gave up its place.
        case admitted(UInt64, evicting: (UInt64, Owner)?)
        /// Over a limit, for this reason.
        case refused(String)
    }

    /// The numeric address it listens on (`0.0.0.0` for every IPv4 interface).
    package let host: String
    package let port: UInt16
    /// The soft limit on open files, after raising it towards what `limits.maxConnections` needs.
    package let openFileLimit: Int
    private let listener: Socket
    private let limits: Limits
    private let handler: Handler
    private let log: Logger?
    private let logRefusal: RefusalLogger?
    private let tls: TLSContext?
    private let state = Mutex(State())
    /// `state.stopping`, readable without the lock: loops look at it on every request.
    private let stopping = Atomic(false)
    /// Connections with a request under way: read in part or whole, or answered but not yet sent.
    private let busy = Atomic(0)
    private let loops: [EventLoop]
    /// Each loop's worker, reached on its loop.
    private let workers: [LoopBound<Worker>]

    package init(host: String, port: UInt16, limits: Limits = Limits(), tls: TLSContext? = nil, log: Logger?,
         logRefusal: RefusalLogger? = nil, handler: @escaping Handler) throws(SocketError) {
        signal(SIGPIPE, SIG_IGN)
        (listener, self.host, self.port) = try Socket.listen(host: host, port: port)
        openFileLimit = FileLimit.raiseSoftLimit(toFit: limits.maxConnections)
        var limits = limits
        limits.maxConnections = FileLimit.connections(limits.maxConnections, openFiles: openFileLimit)
        self.limits = limits
        self.handler = handler
        self.log = log
        self.logRefusal = logRefusal
        self.tls = tls
        let count = limits.workers > 0 ? limits.workers : min(max(ProcessInfo.processInfo.activeProcessorCount, 1), 16)
        var loops: [EventLoop] = []
        for index in 0..<count {
            do {
                loops.append(try EventLoop(name: "http-\(index)"))
            } catch {
                for loop in loops { loop.stop() }
                listener.close()
                throw error
            }
        }
        self.loops = loops
        workers = loops.map { loop in
            let worker = LoopBound(handing: Worker(loop: loop), to: loop)
            loop.execute { worker.value.start() }
            return worker
        }
        listener.makeNonBlocking()
        let acceptor = loops[0]
        acceptor.execute { [self] in startAccepting(on: acceptor) }
    }

    /// Stops accepting, lets requests under way finish (up to the drain timeout), closes the rest and ends the loops.
    package func stop() {
        let alreadyStopping = state.withLock { state in
            defer { state.stopping = true }
            stopping.store(true, ordering: .sequentiallyConsistent)
            return state.stopping
        }
        guard !alreadyStopping else { return }
        listener.shutdownBoth()
        for worker in workers { worker.loop.execute { worker.value.stopping() } }
        let clock = ContinuousClock()
        let deadline = clock.now + limits.drainTimeout
        while clock.now < deadline, busy.load(ordering: .sequentiallyConsistent) > 0 {
            Thread.sleep(forTimeInterval: 0.005)
        }
        for worker in workers {
            worker.loop.execute { worker.value.closeAll() }
            worker.loop.stop()
        }
        listener.close()
    }

    /// `text` with spaces and what is unsafe to print (controls, bidi overrides, line separators) written as %-escapes
    /// of their UTF-8: a client's path (decoded) goes into a log line, where a newline would forge another line and an
    /// escape sequence would act on the operator's terminal.
    package static func printable(_ text: String) -> String {
        func isUnsafe(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar.isUnsafeToPrint }
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                for byte in String(scalar).utf8 { out += (byte < 16 ? "%0" : "%") + String(byte, radix: 16, uppercase: true) }
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Connections open now.
    package var connectionCount: Int { state.withLock { $0.open.count } }

    /// Connections served at once: the limit asked for, or less when the open-file limit has no room for it.
    package var maxConnections: Int { limits.maxConnections }

    private var isStopping: Bool { stopping.load(ordering: .relaxed) }

    // MARK: Accepting (on the first loop)

    private func startAccepting(on loop: EventLoop) {
        var next = 0
        var registration: EventLoop.Registration?
        func acceptWaiting() {
            for _ in 0..<64 where !isStopping {
                let client: Socket, address: String
                switch listener.accept() {
                case .client(let socket, let from): (client, address) = (socket, from)
                case .none: return
                case .outOfDescriptors:
                    // The waiting client keeps the listener readable: waiting on it again at once would spin.
                    if let held = registration { loop.deregister(held) }
                    registration = nil
                    loop.schedule(at: .now + .milliseconds(100)) {
                        guard !self.isStopping else { return }
                        registration = loop.register(self.listener.fd, for: .read) { _ in acceptWaiting() }
                    }
                    return
                }
                let id: UInt64, index = next
                switch admit(from: address, to: index) {
                case .admitted(let admitted, let evicting):
                    id = admitted
                    if let (victim, owner) = evicting { evict(victim, from: owner) }
                case .refused(let refusal):
                    let busy = HTTPResponse.error(503, refusal, headers: [("Retry-After", "1")])
                    // Over https a plain answer would read as a broken handshake, and a handshake per refusal is
                    // what an overloaded server cannot afford: the connection is closed unanswered.
                    if tls == nil {
                        client.makeNonBlocking()
                        // The first worker's loop is this one, the acceptor's.
                        _ = client.sendSome(busy.serialized(keepAlive: false, date: workers[0].value.date.field()), from: 0)
                    }
                    log?(nil, busy, .zero)
                    client.close()
                    continue
                }
                next = (next + 1) % workers.count
                let worker = workers[index]
                if !worker.loop.execute({ [self] in worker.value.adopt(client, id: id, address: address, server: self) }) {
                    forget(id, closing: client)
                }
            }
            if isStopping, let held = registration {
                loop.deregister(held)
                registration = nil
            }
        }
        registration = loop.register(listener.fd, for: .read) { _ in acceptWaiting() }
        loop.whenStopping { if let held = registration { loop.deregister(held) } }
    }

    /// Counts a new connection in, unproven; when the server is full, in the place of the longest unproven connection
    /// of the address with the most unproven ones. Refused over the address's limit, or when every place is proven.
    private func admit(from address: String, to worker: Int) -> Admission {
        state.withLock { state -> Admission in
            if state.stopping { return .refused("the server is stopping") }
            let held = state.perAddress[address, default: Held()]
            guard held.count < limits.maxConnectionsPerAddress else {
                return .refused("\(address) has \(held.count) connections open, the most one address may; reuse or close one, or retry shortly")
            }
            var evicting: (UInt64, Owner)?
            if state.open.count >= limits.maxConnections {
                let longest = state.perAddress.max { a, b in
                    a.value.unproven.count != b.value.unproven.count
                        ? a.value.unproven.count < b.value.unproven.count
                        : (a.value.unproven.first?.since ?? 0) > (b.value.unproven.first?.since ?? 0)
                }
                guard let (victimAddress, victimHeld) = longest, let victim = victimHeld.unproven.first?.id,
                      let slot = state.open.removeValue(forKey: victim) else {
                    return .refused("the server is at its limit of \(limits.maxConnections) connections, all of them in use; retry shortly")
                }
                state.perAddress[victimAddress] = victimHeld.count > 1
                    ? Held(count: victimHeld.count - 1, unproven: Array(victimHeld.unproven.dropFirst())) : nil
                evicting = (victim, slot.owner)
            }
            state.lastID += 1
            state.open[state.lastID] = Slot(address: address, owner: .worker(worker))
            state.perAddress[address, default: Held()].count += 1
            state.unprove(state.lastID, of: address)
            return .admitted(state.lastID, evicting: evicting)
        }
    }

    /// Asks the connection's owner to close it: its place is another's now.
    private func evict(_ id: UInt64, from owner: Owner) {
        switch owner {
        case .worker(let index):
            let worker = workers[index]
            worker.loop.execute { [self] in worker.value.evict(id, server: self) }
        case .takenOver(let evict):
            evict(id)
        }
    }

    /// The connection has shown it is a client (a request read whole, a WebSocket in a channel): a newcomer never takes
    /// its place. `false` makes it unproven again (a WebSocket leaving its channel), the newest of them.
    fileprivate func prove(_ id: UInt64, _ proven: Bool = true) {
        state.withLock { state in
            guard let address = state.open[id]?.address else { return }
            if proven { state.perAddress[address]?.unproven.removeAll { $0.id == id } } else { state.unprove(id, of: address) }
        }
    }

    /// The connection went to another owner after a 101 (`adopt` already called), unproven whatever it asked before (a
    /// 101 proves nothing: the new owner says when it is proven; one unproven all along keeps its place in line); if its
    /// place was taken meanwhile, that owner closes it now.
    fileprivate func handedOver(_ id: UInt64, to takeover: Takeover) {
        let kept = state.withLock { state -> Bool in
            guard let address = state.open[id]?.address else { return false }
            state.open[id]?.owner = .takenOver(takeover.evict)
            if state.perAddress[address]?.unproven.contains(where: { $0.id == id }) != true { state.unprove(id, of: address) }
            return true
        }
        if !kept { takeover.evict(id) }
    }

    /// Uncounts the connection and closes its socket.
    fileprivate func forget(_ id: UInt64, closing socket: Socket) {
        state.withLock { state in
            guard let slot = state.open.removeValue(forKey: id), var held = state.perAddress[slot.address] else { return }
            held.count -= 1
            held.unproven.removeAll { $0.id == id }
            state.perAddress[slot.address] = held.count > 0 ? held : nil
        }
        socket.close()
    }

    // MARK: Serving (on each loop)

    /// One loop's connections, reached on its thread only.
    private final class Worker {
        let loop: EventLoop
        var connections: [UInt64: Connection] = [:]
        var scratch = [UInt8](repeating: 0, count: Socket.receiveSize)
        /// Connections that queued an answer this turn, sent at its end. Sent as each was made, every answer woke its
        /// client's thread on its own; sent together after the turn's requests, one wake-up finds several waiting.
        var answered: [Connection] = []
        private var sending: [Connection] = []
        /// The `Date` field of this loop's answers.
        var date = HTTPDate()

        init(loop: EventLoop) { self.loop = loop }

        /// On the loop: its answers go out at the end of every turn.
        func start() { loop.eachTurn { [unowned self] in sendAnswered() } }

        func sendAnswered() {
            // A pipelined request answered while sending comes round again in the same turn.
            while !answered.isEmpty {
                swap(&answered, &sending)
                for connection in sending { connection.sendQueued() }
                sending.removeAll(keepingCapacity: true)
            }
        }

        func adopt(_ socket: Socket, id: UInt64, address: String, server: HTTPServer) {
            guard !loop.isStopping else { return server.forget(id, closing: socket) }  // handed over as the loop ended
            socket.makeNonBlocking()
            let session: TLSSession?
            if let context = server.tls {
                do {
                    session = try TLSSession(serving: context)
                } catch {
                    return server.forget(id, closing: socket)
                }
            } else {
                session = nil
            }
            let wire = Wire(socket, tls: session)
            let connection = Connection(wire, id: id, address: address, worker: self, server: server,
                                        on: LoopConnection(wire, on: loop, ready: { [unowned self] readiness in
                                            connections[id]?.ready(readiness)
                                        }, deadline: { [unowned self] in
                                            connections[id]?.deadlineCame()
                                        }))
            connections[id] = connection
            connection.perform(connection.machine.start())
        }

        /// Closes an unproven connection whose place a newcomer took (`admit`); over http it hears why first.
        func evict(_ id: UInt64, server: HTTPServer) {
            guard let connection = connections[id] else { return }  // closed meanwhile
            let full = HTTPResponse.error(503, "the server is full, and this connection had sent no whole request; "
                                              + "its place went to a newer one; connect again", headers: [("Retry-After", "1")])
            if !connection.wire.isTLS, connection.wire.queued == 0 {
                _ = connection.wire.socket.sendSome(full.serialized(keepAlive: false, date: date.field()), from: 0)
            }
            server.log?(nil, full, .zero)
            connection.close()
        }

        func stopping() {
            for connection in Array(connections.values) {
                if let action = connection.machine.stopping() { connection.perform(action) }
            }
        }

        func closeAll() {
            for connection in Array(connections.values) { connection.close() }
        }
    }

    /// One connection: the machine that decides, and the wire on its loop that the decisions are carried out on.
    private final class Connection {
        var machine: HTTPConnectionMachine
        let connection: LoopConnection
        let id: UInt64
        let address: String
        /// Whether a request of it was read whole (`HTTPServer.prove`), kept here so that later ones take no lock.
        var proven = false
        unowned let worker: Worker
        let server: HTTPServer
        var countedBusy = false

        init(_ wire: Wire, id: UInt64, address: String, worker: Worker, server: HTTPServer, on connection: LoopConnection) {
            self.connection = connection
            self.id = id
            self.address = address
            self.worker = worker
            self.server = server
            machine = HTTPConnectionMachine(now: .now, times: server.limits.times, handshaking: wire.isTLS)
        }

        var wire: Wire { connection.wire }

        func ready(_ readiness: EventLoop.Readiness) {
            if readiness.writable, wire.queued > 0 {
                guard flushed() else { return }
            }
            // While an answer is pending nothing is read (`.wait(.write, …)`): a hang-up shows as a failed send.
            guard readiness.readable, machine.reads, connection.isRegistered else { return }
            switch wire.receive(scratch: &worker.scratch) {
            case .nothing:
                perform(machine.received([], now: .now))
            case .data(let bytes):
                perform(machine.received(bytes, now: .now))
            case .secured(let bytes):
                var action = machine.handshakeFinished(now: .now)
                if !bytes.isEmpty, case .wait = action { action = machine.received(bytes, now: .now) }
                perform(action)
            case .ended:
                perform(machine.peerClosed())
            case .refused(let failure):
                if case .lingering = machine.phase {} else {
                    server.logRefusal?(address, failure)
                    _ = wire.flush()  // the alert, if the socket takes it
                }
                perform(machine.peerClosed())
            }
            if worker.answered.count >= HTTPServer.answersHeld { worker.sendAnswered() }
        }

        func deadlineCame() {
            let wasHandshaking = if case .handshaking = machine.phase { true } else { false }
            let action = machine.deadlinePassed(now: .now)
            if wasHandshaking, case .close = action {
                server.logRefusal?(address, .handshakeRefused(
                    "the client did not finish it within \(server.limits.requestDeadline); the connection is closed"))
            }
            perform(action)
        }

        /// Sends what the socket takes; false when the connection closed meanwhile.
        private func flushed() -> Bool {
            switch wire.flush() {
            case .failed:
                perform(machine.peerClosed())
                return false
            case .done:
                if case .sending = machine.phase { perform(machine.sent(allOut: true, progressed: true, now: .now)) } else { connection.wait(for: .read) }
            case .partial(let progressed):
                if case .sending = machine.phase { perform(machine.sent(allOut: false, progressed: progressed, now: .now)) }
                else { connection.wait(for: [.read, .write]) }
            }
            return connection.isRegistered
        }

        func perform(_ first: HTTPConnectionMachine.Action) {
            var action = first
            while connection.isRegistered {
                switch action {
                case .serve(let request, let started):
                    let response = server.handler(request)
                    if !proven, response.takeover == nil {
                        proven = true
                        server.prove(id)
                    }
                    server.log?(request, response, .now - HTTPConnectionMachine.instant(started))
                    action = machine.respond(response, to: request, keepAlive: request.keepAlive && !server.isStopping,
                                             date: worker.date.field(), now: .now)
                case .refuse(let response, let started):
                    server.log?(nil, response, .now - HTTPConnectionMachine.instant(started))
                    action = machine.respond(response, to: nil, keepAlive: false, date: worker.date.field(), now: .now)
                case .send(let bytes):
                    do {
                        try wire.queue(bytes)
                    } catch {
                        action = machine.peerClosed()
                        continue
                    }
                    updateBusy()
                    worker.answered.append(self)
                    return
                case .wait(let waiting, let until):
                    switch waiting {
                    case .read:
                        connection.wait(for: .read)
                        if wire.queued > 0, !flushed() { return }  // a TLS handshake's bytes to answer
                    case .write: connection.wait(for: .write)
                    case .readOnly: connection.wait(for: .read)
                    }
                    connection.arm(at: HTTPConnectionMachine.instant(until))
                    updateBusy()
                    return
                case .linger(let until):
                    updateBusy()
                    wire.shutdownWrite()
                    connection.wait(for: .read)
                    connection.arm(at: HTTPConnectionMachine.instant(until))
                    return
                case .close:
                    return close()
                case .handOver(let takeover, let leftover):
                    release()
                    // The wire leaves this loop, which reaches it no more (`release`): bound here, handed there.
                    let leaving = LoopBound(wire, on: worker.loop)
                    takeover.adopt(leaving.value, leftover, address, CountedConnection(id: id, server: server, socket: wire.socket))
                    server.handedOver(id, to: takeover)
                    return
                }
            }
        }

        /// Sends the answer queued in this turn and goes on from there.
        func sendQueued() {
            guard connection.isRegistered else { return }
            _ = flushed()
        }

        private func updateBusy() {
            let isBusy = machine.isBusy && connection.isRegistered
            guard isBusy != countedBusy else { return }
            countedBusy = isBusy
            if isBusy { server.busy.add(1, ordering: .sequentiallyConsistent) } else { server.busy.subtract(1, ordering: .sequentiallyConsistent) }
        }

        /// Leaves the loop: no more readiness or deadlines, not counted busy.
        private func release() {
            connection.release()
            updateBusy()
            worker.connections[id] = nil
        }

        func close() {
            guard connection.isRegistered else { return }
            release()
            server.forget(id, closing: wire.socket)
        }
    }
}

/// A connection taken over after a 101, as the HTTP server still counts it until `release`.
struct CountedConnection: Sendable {
    /// The id `Takeover.evict` names it by.
    let id: UInt64
    fileprivate let server: HTTPServer
    fileprivate let socket: Socket

    /// Whether it has shown it is a client (a WebSocket in a channel): an unproven one's place goes to a newcomer when the
    /// server is full.
    func prove(_ proven: Bool) { server.prove(id, proven) }

    /// Uncounts it and closes its socket; called once, instead of closing the socket.
    func release() { server.forget(id, closing: socket) }
}
