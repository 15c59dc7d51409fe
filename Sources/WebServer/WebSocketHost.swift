import Dispatch
import HTTP1
import Sockets
import Synchronization
import TLS
import WebSocket

/// Runs the WebSocket connections the HTTP server hands over after a 101, on an event loop of its own, for one
/// service: each connection's `WebSocketPeerMachine` reads its frames and decides, and the host carries out what it
/// says on the connection's `LoopConnection` and with the service. Every client has a bounded send queue: one that
/// does not read is dropped, never waited for, so it stalls nobody. It lives on its loop; other threads hold its
/// `Handle`.
package final class WebSocketHost {
    /// A host as other threads reach it: the HTTP loops ask it to upgrade, its owner stops it.
    package final class Handle: Sendable {
        /// The request path that upgrades.
        package let path: String
        private let admission: @Sendable (HTTPRequest) -> String?
        private let host: LoopBound<WebSocketHost>
        private let stopping = Atomic(false)

        /// Starts the host's loop, where the endpoint's service is made.
        package init(_ endpoint: WebSocketEndpoint, log: (@Sendable (String) -> Void)?) throws(SocketError) {
            path = endpoint.path
            admission = endpoint.admission
            let loop = try EventLoop(name: "websocket-host")
            let host = LoopBound(handing: WebSocketHost(endpoint, loop: loop, log: log), to: loop)
            self.host = host
            loop.execute { host.value.start() }
        }

        /// The answer to a request on the endpoint: 101 and the connection is the host's, or 400/426 saying why not.
        /// Runs on the HTTP loops.
        package func upgrade(_ request: HTTPRequest) -> HTTPResponse {
            guard !stopping.load(ordering: .relaxed) else { return .error(503, "the server is stopping") }
            if let refusal = admission(request) { return .error(400, refusal) }
            switch WebSocketHandshake.accept(method: request.method, version: request.version, header: request.header) {
            case .failure(let refusal):
                return .error(refusal.status, refusal.message,
                              headers: refusal.status == 426 ? [("Sec-WebSocket-Version", "13")] : [])
            case .success(let accept):
                let host = host, query = request.query
                return .switchingProtocols(
                    headers: [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept)],
                    to: Takeover(adopt: { [self] wire, leftover, address, counted in
                        // Answered 101 as the host stops: told so here, since the host may have stopped already.
                        guard !stopping.load(ordering: .sequentiallyConsistent) else { return WebSocketHost.sayStopping(wire, counted) }
                        let adopted = LoopBound(handing: Adopted(wire: wire, leftover: leftover, address: address, query: query,
                                                                 counted: counted), to: host.loop)
                        // Stopped since, between the two lines above: the socket is closed unanswered.
                        if !host.loop.execute({ host.value.adopt(adopted.value) }) { counted.release() }
                    }, evict: { id in
                        host.loop.execute { host.value.evict(id) }
                    }))
            }
        }

        /// The service's last word (the loop turning meanwhile, up to `stopLimit`), then every connection is closed
        /// (1001) and the loop's thread ends; returns once it has (a second call at once).
        package func stop() {
            guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
            let host = host, stopped = DispatchSemaphore(value: 0)
            guard host.loop.execute({ host.value.beginStopping { stopped.signal() } }) else { return }
            _ = stopped.wait(timeout: .now() + WebSocketHost.stopLimit)
            host.loop.execute { host.value.closeEverything() }  // a service that has not said it is done is not waited for
            host.loop.stop()
        }
    }

    /// A connection handed over after a 101, on its way to the host's loop.
    private struct Adopted {
        let wire: Wire
        let leftover: [UInt8]
        let address: String
        let query: [String: String]
        let counted: CountedConnection
    }

    private final class Peer {
        let id: WebSocketClientID
        let address: String
        let counted: CountedConnection
        let connection: LoopConnection
        var machine: WebSocketPeerMachine
        /// In the host's `pending`.
        var isPending = false

        init(id: WebSocketClientID, _ adopted: Adopted, connection: LoopConnection, machine: WebSocketPeerMachine) {
            (self.id, address, counted, self.connection, self.machine) = (id, adopted.address, adopted.counted, connection, machine)
        }

        var wire: Wire { connection.wire }
    }

    private let path: String
    private let limits: WebSocketLimits
    private let serverLog: (@Sendable (String) -> Void)?
    private let loop: EventLoop
    private let makeService: @Sendable () -> any WebSocketService
    /// Made on the loop, at `start`.
    private lazy var service = makeService()
    private var peers: [WebSocketClientID: Peer] = [:]
    /// The same peers by their id in the HTTP server's count (`CountedConnection.id`), which evicts by it.
    private var byCountedID: [UInt64: Peer] = [:]
    private var nextID: UInt64 = 0
    private var phase = Phase.running
    /// Connections that ended, for the service to hear of once its callback under way has returned.
    private var ended: [(WebSocketClientID, WebSocketEnd)] = []
    private let clock = ContinuousClock()
    private var scratch = [UInt8](repeating: 0, count: Socket.receiveSize)
    /// The service's next planned tick, armed on the loop.
    private var serviceTimer: (EventLoop.Timer, ContinuousClock.Instant)?
    /// Peers queued frames since the last flush.
    private var pending: [Peer] = []

    private enum Phase {
        case running
        /// Waiting for the service's last word: nothing more is read from the clients.
        case stopping
        /// Every connection closed with 1001.
        case stopped
    }

    /// The longest a stopping host waits for its service.
    static let stopLimit = DispatchTimeInterval.seconds(2)

    private init(_ endpoint: WebSocketEndpoint, loop: EventLoop, log: (@Sendable (String) -> Void)?) {
        path = endpoint.path
        limits = endpoint.limits
        makeService = endpoint.service
        serverLog = log
        self.loop = loop
    }

    private func start() {
        service.start(outlet: Outlet(host: self), wake: { [loop] in loop.wake() })
        loop.eachTurn { [self] in afterEvent() }  // the cycle ends with the loop, which drops its hooks
    }

    /// What follows every event: the service's tick, the ends it has yet to hear of, and the queues flushed.
    private func afterEvent() {
        let serviceWait = service.tick()
        tellEnded()
        flush()
        tellEnded()
        if let serviceWait {
            let due = clock.now + serviceWait
            if let (_, armed) = serviceTimer, armed <= due { return }
            if let (held, _) = serviceTimer { loop.cancel(held) }
            serviceTimer = (loop.schedule(at: due) { [self] in serviceTimer = nil }, due)
        }
    }

    private func beginStopping(then stopped: @escaping () -> Void) {
        guard case .running = phase else { return }
        phase = .stopping
        for peer in peers.values { settle(peer) }
        service.stopping { [self] in
            closeEverything()
            stopped()
        }
    }

    private func closeEverything() {
        guard phase != .stopped else { return }
        phase = .stopped
        for peer in Array(peers.values) { perform(peer.machine.stopping(), on: peer) }
        tellEnded()
    }

    private func adopt(_ adopted: Adopted) {
        guard case .running = phase else { return Self.sayStopping(adopted.wire, adopted.counted) }
        nextID += 1
        let id = WebSocketClientID(nextID)
        let connection = LoopConnection(adopted.wire, on: loop, ready: { [self] readiness in
            guard let peer = peers[id] else { return }
            if readiness.writable { write(peer) }
            if readiness.readable, case .running = phase, peers[id] != nil { read(peer) }
            afterPeerEvent(peer)
        }, deadline: { [self] in
            guard let peer = peers[id] else { return }
            perform(peer.machine.deadlinePassed(now: clock.now, queued: peer.wire.queued), on: peer)
            afterPeerEvent(peer)
        })
        let peer = Peer(id: id, adopted, connection: connection, machine: WebSocketPeerMachine(now: clock.now, limits: limits))
        peers[id] = peer
        byCountedID[peer.counted.id] = peer
        service.opened(id, address: peer.address, query: adopted.query)
        if !adopted.leftover.isEmpty { receive(adopted.leftover, on: peer, now: clock.now) }
        afterPeerEvent(peer)
        afterEvent()
    }

    /// A connection answered 101 as the host stops, before it was adopted: told so with 1001 like the others, and closed.
    private static func sayStopping(_ wire: Wire, _ counted: CountedConnection) {
        try? wire.queue(WebSocketPeerMachine.stoppingFrame)
        _ = wire.flush()
        counted.release()
    }

    /// The service hears of what ended, and the peer waits for what its state needs until its deadline.
    private func afterPeerEvent(_ peer: Peer) {
        tellEnded()
        settle(peer)
    }

    private func settle(_ peer: Peer) {
        guard peer.connection.isRegistered else { return }
        let queued = peer.wire.queued > 0
        let reading: EventLoop.Interest = if case .running = phase { .read } else { [] }
        peer.connection.wait(for: queued ? reading.union(.write) : reading)
        peer.connection.arm(at: peer.machine.deadline(queued: queued))
    }

    private func read(_ peer: Peer) {
        let now = clock.now
        switch peer.wire.receive(scratch: &scratch) {
        case .nothing: return
        case .ended(let bytes):
            receive(bytes, on: peer, now: now)
            perform(peer.machine.ended(), on: peer)
        case .refused(let failure): perform(peer.machine.broke("\(failure)"), on: peer)
        case .data(let bytes), .secured(let bytes): receive(bytes, on: peer, now: now)
        }
    }

    /// Feeds the peer's machine what arrived, and reads on after each message the service heard.
    private func receive(_ bytes: [UInt8], on peer: Peer, now: ContinuousClock.Instant) {
        var actions = peer.machine.received(bytes, queued: peer.wire.queued, now: now)
        while !actions.isEmpty {
            perform(actions, on: peer)
            guard case .deliver = actions.last else { return }
            actions = peer.machine.received([], queued: peer.wire.queued, now: now)
        }
    }

    /// Carries out the peer's actions in order; when one fails, the machine hears of it and the rest, meant for a
    /// connection that just went, are dropped.
    private func perform(_ actions: [WebSocketPeerMachine.Action], on peer: Peer) {
        for action in actions {
            guard peer.connection.isRegistered else { return }  // dropped meanwhile, by the service's doing
            switch action {
            case .send(let bytes):
                do {
                    try peer.wire.queue(bytes)
                } catch {
                    return perform(peer.machine.broke(), on: peer)
                }
                markPending(peer)
            case .sendLast(let bytes):
                try? peer.wire.queue(bytes)
                _ = peer.wire.flush()
            case .deliver(let message):
                service.received(message, from: peer.id)
            case .tell(let end):
                ended.append((peer.id, end))
            case .halfClose:
                peer.wire.shutdownWrite()
            case .drop:
                drop(peer)
            case .log(let line):
                log(peer, line)
            }
        }
    }

    /// The peer is flushed at the end of this turn.
    private func markPending(_ peer: Peer) {
        guard !peer.isPending else { return }
        peer.isPending = true
        pending.append(peer)
    }

    /// Sends what the socket takes now of every client that was queued something this turn.
    private func flush() {
        let queued = pending
        pending.removeAll(keepingCapacity: true)
        for peer in queued {
            peer.isPending = false
            guard peer.connection.isRegistered else { continue }
            write(peer)
            settle(peer)
        }
    }

    private func write(_ peer: Peer) {
        var progressed = false
        if peer.wire.queued > 0 {
            switch peer.wire.flush() {
            case .done: progressed = true
            case .partial(let some): progressed = some
            case .failed: return perform(peer.machine.broke(), on: peer)
            }
        }
        perform(peer.machine.sent(allOut: peer.wire.queued == 0, progressed: progressed, now: clock.now), on: peer)
    }

    /// Off the loop and closed, its place in the HTTP server's count given back.
    private func drop(_ peer: Peer) {
        guard peers.removeValue(forKey: peer.id) != nil else { return }
        byCountedID[peer.counted.id] = nil
        peer.connection.release()
        peer.counted.release()
    }

    /// Tells the service of the connections that ended, outside its callbacks (what it does then may end more).
    private func tellEnded() {
        while !ended.isEmpty {
            let (id, end) = ended.removeFirst()
            service.closed(id, end)
        }
    }

    /// The HTTP server gave this unproven connection's place to a newcomer.
    private func evict(_ id: UInt64) {
        guard let peer = byCountedID[id] else { return }
        perform(peer.machine.evict(queued: peer.wire.queued), on: peer)
        afterEvent()
    }

    private func log(_ peer: Peer, _ what: String) {
        serverLog?("ws \(HTTPServer.printable(path)) \(peer.address) \(peer.id) \(what)")
    }

    /// The host as its service sees it.
    private final class Outlet: WebSocketOutlet {
        unowned let host: WebSocketHost
        init(host: WebSocketHost) { self.host = host }

        func send(text: String, to clients: some Sequence<WebSocketClientID>) {
            send(WebSocketFrame.encode(.text, Array(text.utf8)), to: clients)
        }

        func send(binary: [UInt8], to clients: some Sequence<WebSocketClientID>) {
            send(WebSocketFrame.encode(.binary, binary), to: clients)
        }

        private func send(_ frame: [UInt8], to clients: some Sequence<WebSocketClientID>) {
            let now = host.clock.now
            for id in clients {
                guard let peer = host.peers[id] else { continue }
                host.perform(peer.machine.send(frame, queued: peer.wire.queued, now: now), on: peer)
            }
        }

        func close(_ client: WebSocketClientID, code: WebSocketCloseCode, reason: String) {
            guard let peer = host.peers[client] else { return }
            host.perform(peer.machine.close(code, reason: reason, queued: peer.wire.queued, now: host.clock.now), on: peer)
        }

        func prove(_ client: WebSocketClientID, _ proven: Bool) { host.peers[client]?.counted.prove(proven) }

        func log(_ line: String) { host.serverLog?(line) }

        var loop: EventLoop? { host.loop }
    }
}
