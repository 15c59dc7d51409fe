import Foundation
import HTTP1
import Sockets
import Synchronization
import WebSocket
#if canImport(Glibc)
import Glibc
#endif

/// Runs the WebSocket connections the HTTP server hands over after a 101, on one poll(2) thread of their own, for
/// one service. Every client has a bounded send queue: one that does not read is dropped, never waited for, so it
/// stalls nobody. Frames are read as they arrive and checked before they are kept (`WebSocketReader`).
final class WebSocketHost: @unchecked Sendable {
    private struct Adopted: Sendable {
        let socket: Socket
        let leftover: [UInt8]
        let address: String
        let query: [String: String]
        let close: @Sendable () -> Void
    }

    let path: String
    private let service: any WebSocketService
    private let limits: WebSocketLimits
    private let serverLog: (@Sendable (String) -> Void)?
    private let mailbox: Mailbox<Adopted>
    private let stopping = Atomic(false)
    private let finished = Atomic(false)
    // The rest belongs to the host's thread.
    private var peers: [WebSocketClientID: Peer] = [:]
    private var nextID: UInt64 = 0
    /// Connections that ended, for the service to hear of once its callback under way has returned.
    private var ended: [(WebSocketClientID, WebSocketEnd)] = []
    private let clock = ContinuousClock()

    init(path: String, service: any WebSocketService, limits: WebSocketLimits, log: (@Sendable (String) -> Void)?) throws(SocketError) {
        self.path = path
        self.service = service
        self.limits = limits
        serverLog = log
        mailbox = try Mailbox()
        let thread = Thread { [self] in run() }
        thread.name = "websocket-host"
        thread.start()
    }

    /// The answer to a request on the endpoint: 101 and the connection is this host's, or 400/426 saying why not.
    func upgrade(_ request: HTTPRequest) -> HTTPResponse {
        guard !stopping.load(ordering: .relaxed) else { return .error(503, "the server is stopping") }
        switch WebSocketHandshake.accept(method: request.method, version: request.version, header: request.header) {
        case .failure(let refusal):
            return .error(refusal.status, refusal.message,
                          headers: refusal.status == 426 ? [("Sec-WebSocket-Version", "13")] : [])
        case .success(let accept):
            return .switchingProtocols(
                headers: [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept)],
                to: Takeover { [self] socket, leftover, address, close in
                    mailbox.hand(Adopted(socket: socket, leftover: leftover, address: address, query: request.query, close: close))
                })
        }
    }

    /// Closes every connection (1001) and ends the thread; waits up to a second for it.
    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        mailbox.wake()
        let deadline = clock.now + .seconds(1)
        while !finished.load(ordering: .sequentiallyConsistent), clock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
    }

    // MARK: The host's thread

    private final class Peer {
        enum Phase {
            case open
            /// A close frame is queued (or there was no room for one); once the queue is out, the host half-closes.
            case closing
            /// Half-closed: waiting for the client to close its end, until `until`.
            case lingering(until: ContinuousClock.Instant)
        }

        let id: WebSocketClientID
        let socket: Socket
        let address: String
        let release: @Sendable () -> Void
        var reader: WebSocketReader
        var output: [UInt8] = []
        var sent = 0
        var phase = Phase.open
        /// When its last whole frame (a message or a control frame) arrived.
        var lastHeard: ContinuousClock.Instant
        /// When the client last took some of `output`, or when output began waiting.
        var lastProgress: ContinuousClock.Instant

        init(_ adopted: Adopted, id: WebSocketClientID, maxMessageBytes: Int, now: ContinuousClock.Instant) {
            self.id = id
            socket = adopted.socket
            address = adopted.address
            release = adopted.close
            reader = WebSocketReader(role: .server, maxMessageBytes: maxMessageBytes)
            lastHeard = now
            lastProgress = now
        }

        var queued: Int { output.count - sent }
        var isOpen: Bool { if case .open = phase { true } else { false } }
    }

    private func run() {
        service.start(outlet: Outlet(host: self), wake: { [mailbox] in mailbox.wake() })
        var scratch = [UInt8](repeating: 0, count: Socket.receiveSize)
        var order: [Peer] = []
        var polled: [pollfd] = []
        while !stopping.load(ordering: .sequentiallyConsistent) {
            let serviceWait = service.tick()
            tellEnded()
            flush()
            order = Array(peers.values)
            polled = [pollfd(fd: mailbox.wakeRead, events: Int16(POLLIN), revents: 0)]
            for peer in order {
                polled.append(pollfd(fd: peer.socket.fd, events: Int16(POLLIN) | (peer.queued > 0 ? Int16(POLLOUT) : 0), revents: 0))
            }
            let ready = poll(&polled, nfds_t(polled.count), timeout(serviceWait, order))
            if ready > 0 {
                for (index, peer) in order.enumerated() where polled[index + 1].revents != 0 && peers[peer.id] === peer {
                    if polled[index + 1].revents & Int16(POLLOUT) != 0 { write(peer) }
                    if peers[peer.id] === peer { read(peer, scratch: &scratch) }
                    tellEnded()
                }
                if polled[0].revents != 0 {
                    for adopted in mailbox.takeNew() {
                        adopt(adopted)
                        tellEnded()
                    }
                }
            }
            checkTimes()
            tellEnded()
        }
        for adopted in mailbox.takeNew() { adopted.socket.close(); adopted.close() }
        for peer in Array(peers.values) {
            if peer.isOpen { peer.output += WebSocketFrame.close(.goingAway, reason: "the server is stopping") }
            write(peer)
            drop(peer, .closedByHost(.goingAway), tell: peer.isOpen)
        }
        tellEnded()
        finished.store(true, ordering: .sequentiallyConsistent)
    }

    private func timeout(_ serviceWait: Duration?, _ order: [Peer]) -> Int32 {
        let now = clock.now
        var next = now + .seconds(1)
        if let serviceWait { next = min(next, now + serviceWait) }
        for peer in order { next = min(next, deadline(of: peer)) }
        return Int32(clamping: max(0, (next - now).wholeMilliseconds + 1))
    }

    private func deadline(of peer: Peer) -> ContinuousClock.Instant {
        if case .lingering(let until) = peer.phase { return until }
        let silence = peer.lastHeard + limits.silenceLimit
        return peer.queued > 0 ? min(silence, peer.lastProgress + limits.sendTimeout) : silence
    }

    private func adopt(_ adopted: Adopted) {
        nextID += 1
        let peer = Peer(adopted, id: WebSocketClientID(nextID), maxMessageBytes: limits.maxMessageBytes, now: clock.now)
        adopted.socket.makeNonBlocking()
        peers[peer.id] = peer
        service.opened(peer.id, address: peer.address, query: adopted.query)
        peer.reader.append(adopted.leftover)
        handleFrames(peer)
    }

    private func read(_ peer: Peer, scratch: inout [UInt8]) {
        var received: [UInt8] = []
        switch peer.socket.receive(appendingTo: &received, scratch: &scratch) {
        case .nothingYet: return
        case .closed:
            if peer.isOpen { log(peer, "lost: the connection closed without a close frame") }
            return drop(peer, .lost, tell: peer.isOpen)
        case .received:
            guard peer.isOpen else { return }  // closing: what still arrives is dropped
            peer.reader.append(received)
            handleFrames(peer)
        }
    }

    private func handleFrames(_ peer: Peer) {
        while peer.isOpen, peers[peer.id] === peer {
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
            peer.lastHeard = clock.now
            switch event {
            case .ping(let payload): enqueue(WebSocketFrame.encode(.pong, payload), to: peer)
            case .pong: break
            case .text(let text): service.received(.text(text), from: peer.id)
            case .binary(let bytes): service.received(.binary(bytes), from: peer.id)
            case .close(let code, _):
                enqueue(WebSocketFrame.close(code == .noStatus ? .normal : code, reason: ""), to: peer)
                peer.phase = .closing
                ended.append((peer.id, .closedByClient(code)))
            }
        }
    }

    /// Queues a close frame, tells the service, and ends the connection once the frame is out.
    private func closeNow(_ peer: Peer, code: WebSocketCloseCode, reason: String) {
        guard peer.isOpen else { return }
        // A client too slow for its queue would not read the close frame either.
        if peer.queued + 2 + WebSocketFrame.maxControlPayload <= limits.maxQueuedBytes {
            peer.output += WebSocketFrame.close(code, reason: reason)
        }
        peer.phase = .closing
        ended.append((peer.id, .closedByHost(code)))
    }

    private func enqueue(_ frame: [UInt8], to peer: Peer) {
        guard peer.isOpen else { return }
        guard peer.queued + frame.count <= limits.maxQueuedBytes else {
            log(peer, "dropped: \(peer.queued) bytes wait for it, over the limit of \(limits.maxQueuedBytes); too slow a reader")
            return drop(peer, .closedByHost(.policyViolation), tell: true)
        }
        if peer.queued == 0 { peer.lastProgress = clock.now }
        if peer.sent > 0, peer.sent == peer.output.count {
            peer.output.removeAll(keepingCapacity: true)
            peer.sent = 0
        }
        peer.output += frame
    }

    /// Sends what every client's socket takes now.
    private func flush() {
        for peer in Array(peers.values) where peer.queued > 0 { write(peer) }
    }

    private func write(_ peer: Peer) {
        if peer.queued > 0 {
            switch peer.socket.sendSome(peer.output, from: peer.sent) {
            case .sent(let count):
                peer.sent += count
                peer.lastProgress = clock.now
                if peer.sent > 64 * 1024, peer.sent * 2 > peer.output.count {
                    peer.output.removeFirst(peer.sent)
                    peer.sent = 0
                }
            case .full: return
            case .failed: return drop(peer, .lost, tell: peer.isOpen)
            }
        }
        if peer.queued == 0, case .closing = peer.phase {
            shutdown(peer.socket.fd, Int32(SHUT_WR))
            peer.phase = .lingering(until: clock.now + limits.lingerTimeout)
        }
    }

    private func checkTimes() {
        let now = clock.now
        for peer in Array(peers.values) where now >= deadline(of: peer) {
            switch peer.phase {
            case .lingering: drop(peer, .lost, tell: false)
            case .open where peer.queued > 0 && now >= peer.lastProgress + limits.sendTimeout:
                log(peer, "dropped: it took nothing of \(peer.queued) waiting bytes for \(limits.sendTimeout)")
                drop(peer, .closedByHost(.policyViolation), tell: true)
            case .open:
                log(peer, "lost: nothing heard for \(limits.silenceLimit)")
                drop(peer, .lost, tell: true)
            case .closing:
                drop(peer, .lost, tell: false)
            }
        }
    }

    /// Ends the connection at once; `tell` says whether the service has yet to hear of it.
    private func drop(_ peer: Peer, _ end: WebSocketEnd, tell: Bool) {
        guard peers.removeValue(forKey: peer.id) != nil else { return }
        peer.phase = .closing
        peer.release()
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
            for id in clients { if let peer = host.peer(id) { host.enqueue(frame, to: peer) } }
        }

        func close(_ client: WebSocketClientID, code: WebSocketCloseCode, reason: String) {
            if let peer = host.peer(client) { host.closeNow(peer, code: code, reason: reason) }
        }

        func log(_ line: String) { host.log(line) }
    }
}
