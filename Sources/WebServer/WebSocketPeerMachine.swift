import WebSocket

/// One WebSocket connection on the host as a value: it reads the client's frames (`WebSocketReader`), answers pings,
/// runs the closing handshake, bounds what waits for the client and keeps its times. Each event returns what the host
/// must do, in order; the machine does no I/O, so every rule is tested without a socket.
struct WebSocketPeerMachine {
    typealias Instant = ContinuousClock.Instant

    enum Phase: Equatable {
        case open
        /// A close frame is queued (or there was no room for one); once the queue is out, the host half-closes.
        case closing
        /// Half-closed: waiting for the client to close its end, until `until`.
        case lingering(until: Instant)
        case closed
    }

    /// What the host does, in order. When one fails (reported back with `broke`), the rest belong to a connection
    /// that is gone and are not carried out.
    enum Action: Equatable {
        /// Queue these bytes for the client; they go out at the end of the turn.
        case send([UInt8])
        /// Queue these bytes (perhaps none) and send what the socket takes now: the connection ends next.
        case sendLast([UInt8])
        /// The service hears a message from the client; then `received([])` reads on, unless the service closed the
        /// connection meanwhile.
        case deliver(WebSocketMessage)
        /// The service hears that the connection ended, once its callback under way has returned.
        case tell(WebSocketEnd)
        /// Stop sending (the close frame is out); the client's end is awaited until the deadline.
        case halfClose
        /// Off the loop and closed, at once.
        case drop
        /// A line for the server's log about this client.
        case log(String)
    }

    /// What a stopping host says to every open connection.
    static let stoppingFrame = WebSocketFrame.close(.goingAway, reason: "the server is stopping")

    private(set) var phase = Phase.open
    /// When its last whole frame (a message or a control frame) arrived.
    private(set) var lastHeard: Instant
    /// When the client last took some of what waits for it, or when waiting began.
    private(set) var lastProgress: Instant
    let limits: WebSocketLimits
    private var reader: WebSocketReader

    init(now: Instant, limits: WebSocketLimits) {
        (lastHeard, lastProgress, self.limits) = (now, now, limits)
        reader = WebSocketReader(role: .server, maxMessageBytes: limits.maxMessageBytes)
    }

    var isOpen: Bool { phase == .open }

    /// When its current wait runs out, with bytes waiting for the client (`queued`) or not.
    func deadline(queued: Bool) -> Instant {
        if case .lingering(let until) = phase { return until }
        let silence = lastHeard + limits.silenceLimit
        return queued ? min(silence, lastProgress + limits.sendTimeout) : silence
    }

    // MARK: Events

    /// Bytes (perhaps none) arrived from the client, with `queued` bytes waiting for it: read up to the next message,
    /// which ends the actions (what the service does with it may close the connection); while closing they are dropped.
    mutating func received(_ bytes: [UInt8], queued: Int, now: Instant) -> [Action] {
        guard isOpen else { return [] }
        reader.append(bytes)
        var queued = queued
        var actions: [Action] = []
        while isOpen {
            let event: WebSocketEvent?
            do {
                event = try reader.next()
            } catch {
                return actions + [.log("closed \(error.code): \(error.reason)")]
                    + close(error.code, reason: error.reason, queued: queued, now: now)
            }
            guard let event else { break }
            // Heard from only when a message or a control frame is whole: bytes that trickle in and never finish one
            // keep nobody in.
            lastHeard = now
            switch event {
            case .ping(let payload):
                let pong = WebSocketFrame.encode(.pong, payload)
                actions += send(pong, queued: queued, now: now)
                queued += pong.count
            case .pong: break
            case .text(let text): return actions + [.deliver(.text(text))]
            case .binary(let bytes): return actions + [.deliver(.binary(bytes))]
            case .close(let code, _):
                actions += send(WebSocketFrame.close(code == .noStatus ? .normal : code, reason: ""), queued: queued, now: now)
                guard isOpen else { break }  // dropped: no room for the answer
                phase = .closing
                actions.append(.tell(.closedByClient(code)))
            }
        }
        return actions
    }

    /// The client closed its end (or the connection broke), after what `received` was given.
    mutating func ended() -> [Action] {
        guard phase != .closed else { return [] }
        let actions: [Action] = isOpen ? [.log("lost: the connection closed without a close frame"), .tell(.lost)] : []
        phase = .closed
        return actions + [.drop]
    }

    /// The connection broke (a send failed, TLS refused the peer's bytes); `why`, when worth a log line.
    mutating func broke(_ why: String? = nil) -> [Action] {
        guard phase != .closed else { return [] }
        var actions: [Action] = []
        if isOpen {
            if let why { actions.append(.log("lost: \(why)")) }
            actions.append(.tell(.lost))
        }
        phase = .closed
        return actions + [.drop]
    }

    /// A frame for the client, with `queued` bytes waiting before it: past the queue's limit the client is dropped as
    /// too slow a reader.
    mutating func send(_ frame: [UInt8], queued: Int, now: Instant) -> [Action] {
        guard isOpen else { return [] }
        guard queued + frame.count <= limits.maxQueuedBytes else {
            phase = .closed
            return [.log("dropped: \(queued) bytes wait for it, over the limit of \(limits.maxQueuedBytes); too slow a reader"),
                    .tell(.closedByHost(.policyViolation)), .drop]
        }
        if queued == 0 { lastProgress = now }  // the send timeout starts when waiting begins
        return [.send(frame)]
    }

    /// Closes with `code`: a close frame when the queue has room for one (a client too slow for its queue would not
    /// read it either); the service hears of it, and the connection ends once the frame is out.
    mutating func close(_ code: WebSocketCloseCode, reason: String, queued: Int, now: Instant) -> [Action] {
        guard isOpen else { return [] }
        phase = .closing
        var actions: [Action] = []
        if hasRoomForClose(queued: queued) {
            if queued == 0 { lastProgress = now }
            actions.append(.send(WebSocketFrame.close(code, reason: reason)))
        }
        return actions + [.tell(.closedByHost(code))]
    }

    /// The server gave this unproven connection's place to a newcomer: it hears why and is closed at once, without
    /// waiting for its close frame, so that its descriptor is free now too.
    mutating func evict(queued: Int) -> [Action] {
        guard phase != .closed else { return [] }
        let reason = "the server is full, and this connection had not proven itself (joined); connect again"
        var actions: [Action] = [.log("closed \(WebSocketCloseCode.policyViolation): \(reason)")]
        if isOpen {
            actions += [.sendLast(hasRoomForClose(queued: queued) ? WebSocketFrame.close(.policyViolation, reason: reason) : []),
                        .tell(.closedByHost(.policyViolation))]
        }
        phase = .closed
        return actions + [.drop]
    }

    /// The host stops: an open connection is told so (1001); every one ends now.
    mutating func stopping() -> [Action] {
        guard phase != .closed else { return [] }
        let actions: [Action] = isOpen
            ? [.sendLast(Self.stoppingFrame), .tell(.closedByHost(.goingAway))]
            : [.sendLast([])]
        phase = .closed
        return actions + [.drop]
    }

    /// The socket took bytes (`progressed`), and now everything queued is out or not (`allOut`): a closing
    /// connection whose close frame is out half-closes and lingers.
    mutating func sent(allOut: Bool, progressed: Bool, now: Instant) -> [Action] {
        if progressed { lastProgress = now }
        guard allOut, phase == .closing else { return [] }
        phase = .lingering(until: now + limits.lingerTimeout)
        return [.halfClose]
    }

    /// A deadline the host armed came (or a later one: the phase's own is checked).
    mutating func deadlinePassed(now: Instant, queued: Int) -> [Action] {
        guard phase != .closed, now >= deadline(queued: queued > 0) else { return [] }
        let actions: [Action]
        switch phase {
        case .open where queued > 0 && now >= lastProgress + limits.sendTimeout:
            actions = [.log("dropped: it took nothing of \(queued) waiting bytes for \(limits.sendTimeout)"),
                       .tell(.closedByHost(.policyViolation))]
        case .open:
            actions = [.log("lost: nothing heard for \(limits.silenceLimit)"), .tell(.silent(limits.silenceLimit))]
        default:
            actions = []  // closing or lingering, and the client did not finish its side in time
        }
        phase = .closed
        return actions + [.drop]
    }

    private func hasRoomForClose(queued: Int) -> Bool {
        queued + 2 + WebSocketFrame.maxControlPayload <= limits.maxQueuedBytes
    }
}
