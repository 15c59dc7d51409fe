import Foundation
import HTTP1
import Sockets
import Synchronization
import TLS
import WebSocket
#if canImport(Glibc)
import Glibc
#endif

/// Runs the WebSocket connections the HTTP server hands over after a 101, on an event loop of their own, for one
/// service. Every client has a bounded send queue: one that does not read is dropped, never waited for, so it
/// stalls nobody. Frames are read as they arrive and checked before they are kept (`WebSocketReader`).
final class WebSocketHost: @unchecked Sendable {
    private struct Adopted: Sendable {
        let wire: Wire
        let leftover: [UInt8]
        let address: String
        let query: [String: String]
        let counted: CountedConnection
    }

    let path: String
    private let service: any WebSocketService
    private let admission: @Sendable (HTTPRequest) -> String?
    private let limits: WebSocketLimits
    private let serverLog: (@Sendable (String) -> Void)?
    private let loop: EventLoop
    private let stopping = Atomic(false)
    // The rest belongs to the loop's thread.
    private var peers: [WebSocketClientID: Peer] = [:]
    /// The same peers by their id in the HTTP server's count (`CountedConnection.id`), which evicts by it.
    private var byCountedID: [UInt64: Peer] = [:]
    private var nextID: UInt64 = 0
    /// Connections that ended, for the service to hear of once its callback under way has returned.
    private var ended: [(WebSocketClientID, WebSocketEnd)] = []
    fileprivate let clock = ContinuousClock()
    private var scratch = [UInt8](repeating: 0, count: Socket.receiveSize)
    /// The service's next planned tick, armed on the loop.
    private var serviceTimer: (EventLoop.Timer, ContinuousClock.Instant)?
    /// Peers queued frames since the last flush.
    private var pending: [Peer] = []

    init(path: String, service: sending any WebSocketService, admission: @escaping @Sendable (HTTPRequest) -> String?,
         limits: WebSocketLimits, log: (@Sendable (String) -> Void)?) throws(SocketError) {
        self.path = path
        self.service = service
        self.admission = admission
        self.limits = limits
        serverLog = log
        loop = try EventLoop(name: "websocket-host")
        loop.execute { [self] in start() }
    }

    /// The answer to a request on the endpoint: 101 and the connection is this host's, or 400/426 saying why not.
    func upgrade(_ request: HTTPRequest) -> HTTPResponse {
        guard !stopping.load(ordering: .relaxed) else { return .error(503, "the server is stopping") }
        if let refusal = admission(request) { return .error(400, refusal) }
        switch WebSocketHandshake.accept(method: request.method, version: request.version, header: request.header) {
        case .failure(let refusal):
            return .error(refusal.status, refusal.message,
                          headers: refusal.status == 426 ? [("Sec-WebSocket-Version", "13")] : [])
        case .success(let accept):
            return .switchingProtocols(
                headers: [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept)],
                to: Takeover(adopt: { [self] wire, leftover, address, counted in
                    let adopted = Adopted(wire: wire, leftover: leftover, address: address, query: request.query, counted: counted)
                    let taken = loop.execute { [self] in
                        guard !stopping.load(ordering: .sequentiallyConsistent) else { return Self.sayStopping(adopted) }
                        adopt(adopted)
                        afterEvent()
                    }
                    if !taken { Self.sayStopping(adopted) }
                }, evict: { [self] id in
                    loop.execute { [self] in
                        evict(id)
                        afterEvent()
                    }
                }))
        }
    }

    /// A connection answered 101 as the host stops, before it was adopted: told so with 1001 like the others.
    private static func sayStopping(_ adopted: Adopted) {
        try? adopted.wire.queue(WebSocketFrame.close(.goingAway, reason: "the server is stopping"))
        _ = adopted.wire.flush()
        adopted.counted.release()
    }

    /// Closes every connection (1001) and ends the loop's thread.
    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        loop.execute { [self] in closeEverything() }
        loop.stop()
    }

    // MARK: The host's thread

    private final class Peer {
        let id: WebSocketClientID
        let wire: Wire
        let address: String
        let counted: CountedConnection
        var reader: WebSocketReader
        var machine: WebSocketPeerMachine
        var registration: EventLoop.Registration?
        var interest: EventLoop.Interest = .read
        /// The deadline armed on the loop; an earlier one replaces it, a later one waits for it.
        var timer: (EventLoop.Timer, ContinuousClock.Instant)?
        /// In the host's `pending`.
        var isPending = false
        /// In the host's `peers`: false once dropped (a flag, not a lookup: the hot paths ask it for every peer sent to).
        var isHeld = true

        init(_ adopted: Adopted, id: WebSocketClientID, limits: WebSocketLimits, now: ContinuousClock.Instant) {
            self.id = id
            wire = adopted.wire
            address = adopted.address
            counted = adopted.counted
            reader = WebSocketReader(role: .server, maxMessageBytes: limits.maxMessageBytes)
            machine = WebSocketPeerMachine(now: now, limits: limits)
        }

        var queued: Int { wire.queued }
        var isOpen: Bool { machine.isOpen }
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

    private func closeEverything() {
        service.stopping()
        for peer in Array(peers.values) {
            if peer.isOpen { try? peer.wire.queue(WebSocketFrame.close(.goingAway, reason: "the server is stopping")) }
            _ = peer.wire.flush()
            drop(peer, .closedByHost(.goingAway), tell: peer.isOpen)
        }
        tellEnded()
    }

    private func ready(_ peer: Peer, _ readiness: EventLoop.Readiness) {
        guard peer.isHeld else { return }
        if readiness.writable { write(peer) }
        if readiness.readable, peer.isHeld { read(peer) }
        tellEnded()
        settle(peer)
    }

    /// Waits for what the peer's state needs, and arms its deadline.
    private func settle(_ peer: Peer) {
        guard peer.isHeld, let registration = peer.registration else { return }
        let wanted: EventLoop.Interest = peer.queued > 0 ? [.read, .write] : .read
        if wanted != peer.interest {
            peer.interest = wanted
            loop.change(registration, to: wanted)
        }
        let due = deadline(of: peer)
        if let (_, armed) = peer.timer, armed <= due { return }
        if let (held, _) = peer.timer { loop.cancel(held) }
        peer.timer = (loop.schedule(at: due) { [self, peer] in
            peer.timer = nil
            checkTimes(peer)
            tellEnded()
            settle(peer)
        }, due)
    }

    private func deadline(of peer: Peer) -> ContinuousClock.Instant {
        peer.machine.deadline(queued: peer.queued > 0)
    }

    private func adopt(_ adopted: Adopted) {
        nextID += 1
        let peer = Peer(adopted, id: WebSocketClientID(nextID), limits: limits, now: clock.now)
        peers[peer.id] = peer
        byCountedID[peer.counted.id] = peer
        peer.registration = loop.register(peer.wire.socket.fd, for: .read) { [self, peer] readiness in
            ready(peer, readiness)
        }
        service.opened(peer.id, address: peer.address, query: adopted.query)
        peer.reader.append(adopted.leftover)
        handleFrames(peer)
        tellEnded()
        settle(peer)
    }

    private func read(_ peer: Peer) {
        switch peer.wire.receive(scratch: &scratch) {
        case .nothing: return
        case .ended(let bytes):
            if peer.isOpen, !bytes.isEmpty {
                peer.reader.append(bytes)
                handleFrames(peer)
            }
            guard peer.isHeld else { return }
            if peer.isOpen { log(peer, "lost: the connection closed without a close frame") }
            return drop(peer, .lost, tell: peer.isOpen)
        case .refused(let failure):
            if peer.isOpen { log(peer, "lost: \(failure)") }
            return drop(peer, .lost, tell: peer.isOpen)
        case .data(let bytes), .secured(let bytes):
            guard peer.isOpen else { return }  // closing: what still arrives is dropped
            peer.reader.append(bytes)
            handleFrames(peer)
        }
    }

    private func handleFrames(_ peer: Peer) {
        while peer.isOpen, peer.isHeld {
            let event: WebSocketEvent?
            do {
                event = try peer.reader.next()
            } catch {
                log(peer, "closed \(error.code): \(error.reason)")
                return closeNow(peer, code: error.code, reason: error.reason)
            }
            guard let event else { return }
            // Heard from only when a message or a control frame is whole: bytes that trickle in and never finish one keep
            // nobody in.
            peer.machine.heard(now: clock.now)
            switch event {
            case .ping(let payload): enqueue(WebSocketFrame.encode(.pong, payload), to: peer)
            case .pong: break
            case .text(let text): service.received(.text(text), from: peer.id)
            case .binary(let bytes): service.received(.binary(bytes), from: peer.id)
            case .close(let code, _):
                enqueue(WebSocketFrame.close(code == .noStatus ? .normal : code, reason: ""), to: peer)
                peer.machine.closing()
                ended.append((peer.id, .closedByClient(code)))
            }
        }
    }

    /// Queues a close frame, tells the service, and ends the connection once the frame is out: sent by this turn's
    /// flush, whoever decided it (a frame read, or the service's tick).
    private func closeNow(_ peer: Peer, code: WebSocketCloseCode, reason: String) {
        guard peer.isOpen else { return }
        if hasRoomForClose(peer) {
            willQueue(to: peer, now: clock.now)
            try? peer.wire.queue(WebSocketFrame.close(code, reason: reason))
        }
        peer.machine.closing()
        markPending(peer)
        ended.append((peer.id, .closedByHost(code)))
    }

    /// Whether the peer's queue takes a close frame still: a client too slow for its queue would not read one either.
    private func hasRoomForClose(_ peer: Peer) -> Bool {
        peer.queued + 2 + WebSocketFrame.maxControlPayload <= limits.maxQueuedBytes
    }

    private func enqueue(_ frame: [UInt8], to peer: Peer, now: ContinuousClock.Instant? = nil) {
        guard peer.isOpen else { return }
        guard peer.queued + frame.count <= limits.maxQueuedBytes else {
            log(peer, "dropped: \(peer.queued) bytes wait for it, over the limit of \(limits.maxQueuedBytes); too slow a reader")
            return drop(peer, .closedByHost(.policyViolation), tell: true)
        }
        willQueue(to: peer, now: now ?? clock.now)
        markPending(peer)
        do {
            try peer.wire.queue(frame)
        } catch {
            drop(peer, .lost, tell: true)
        }
    }

    /// Bytes are about to be queued for the peer: with nothing waiting before, its send timeout starts now.
    private func willQueue(to peer: Peer, now: ContinuousClock.Instant) {
        if peer.queued == 0 { peer.machine.queued(now: now, wasEmpty: true) }
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
        let now = clock.now
        for peer in queued {
            peer.isPending = false
            guard peer.isHeld else { continue }
            write(peer, now: now)
            settle(peer)
        }
    }

    private func write(_ peer: Peer, now: ContinuousClock.Instant? = nil) {
        let now = now ?? clock.now
        if peer.queued > 0 {
            switch peer.wire.flush() {
            case .done: peer.machine.progressed(now: now)
            case .partial(let progressed):
                if progressed { peer.machine.progressed(now: now) }
                return
            case .failed: return drop(peer, .lost, tell: peer.isOpen)
            }
        }
        if peer.queued == 0, case .halfClose = peer.machine.queueEmptied(now: now) { peer.wire.shutdownWrite() }
    }

    private func checkTimes(_ peer: Peer) {
        let now = clock.now
        guard peer.isHeld, now >= deadline(of: peer) else { return }
        switch peer.machine.deadlinePassed(now: now, queued: peer.queued > 0) {
        case .wait, .halfClose: break
        case .end(.tooSlow):
            log(peer, "dropped: it took nothing of \(peer.queued) waiting bytes for \(limits.sendTimeout)")
            drop(peer, .closedByHost(.policyViolation), tell: true)
        case .end(.silent):
            log(peer, "lost: nothing heard for \(limits.silenceLimit)")
            drop(peer, .silent(limits.silenceLimit), tell: true)
        case .end(.closingOver):
            drop(peer, .lost, tell: false)
        }
    }

    /// Ends the connection at once; `tell` says whether the service has yet to hear of it.
    private func drop(_ peer: Peer, _ end: WebSocketEnd, tell: Bool) {
        guard peers.removeValue(forKey: peer.id) != nil else { return }
        byCountedID[peer.counted.id] = nil
        peer.isHeld = false
        peer.machine.ended()
        if let registration = peer.registration { loop.deregister(registration) }
        peer.registration = nil
        if let (held, _) = peer.timer { loop.cancel(held) }
        peer.timer = nil
        peer.counted.release()
        if tell { ended.append((peer.id, end)) }
    }

    /// Tells the service of the connections that ended, outside its callbacks (what it does then may end more).
    private func tellEnded() {
        while !ended.isEmpty {
            let (id, end) = ended.removeFirst()
            service.closed(id, end)
        }
    }

    private func peer(_ id: WebSocketClientID) -> Peer? { peers[id] }

    /// The HTTP server gave this unproven connection's place to a newcomer: it hears why and is closed at once, without
    /// waiting for its close frame, so that its descriptor is free now too.
    private func evict(_ id: UInt64) {
        guard let peer = byCountedID[id] else { return }
        let reason = "the server is full, and this connection had not proven itself (joined); connect again"
        log(peer, "closed \(WebSocketCloseCode.policyViolation): \(reason)")
        if peer.isOpen, hasRoomForClose(peer) {
            try? peer.wire.queue(WebSocketFrame.close(.policyViolation, reason: reason))
            _ = peer.wire.flush()
        }
        drop(peer, .closedByHost(.policyViolation), tell: peer.isOpen)
    }

    private func log(_ peer: Peer, _ what: String) {
        serverLog?("ws \(TokenServer.printable(path)) \(peer.address) \(peer.id) \(what)")
    }

    private func log(_ line: String) { serverLog?(line) }

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
            for id in clients { if let peer = host.peer(id) { host.enqueue(frame, to: peer, now: now) } }
        }

        func close(_ client: WebSocketClientID, code: WebSocketCloseCode, reason: String) {
            if let peer = host.peer(client) { host.closeNow(peer, code: code, reason: reason) }
        }

        func prove(_ client: WebSocketClientID, _ proven: Bool) { host.peer(client)?.counted.prove(proven) }

        func log(_ line: String) { host.log(line) }

        var loop: EventLoop? { host.loop }
    }
}
