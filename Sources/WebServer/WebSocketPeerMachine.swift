/// One WebSocket connection's life on the host as a value: what it heard and when, whether the client takes what
/// waits for it, and its closing; events change its phase and deadlines return what the host must do. Frames
/// themselves are the host's (`WebSocketReader`), so the timing rules are tested without a socket.
struct WebSocketPeerMachine {
    enum Phase: Equatable {
        case open
        /// A close frame is queued (or there was no room for one); once the queue is out, the host half-closes.
        case closing
        /// Half-closed: waiting for the client to close its end, until `until`.
        case lingering(until: ContinuousClock.Instant)
        case closed
    }

    /// Why a connection is ended at its deadline.
    enum Ending: Equatable {
        /// Open, with bytes waiting that the client took none of for the send timeout.
        case tooSlow
        /// Open, and no whole frame from the client for the silence limit.
        case silent
        /// Closing or lingering, and the client did not finish its side in time.
        case closingOver
    }

    enum Action: Equatable {
        /// Nothing to do before this instant.
        case wait(until: ContinuousClock.Instant)
        /// Stop sending (the close frame is out) and wait for the client's end until the instant.
        case halfClose(until: ContinuousClock.Instant)
        case end(Ending)
    }

    private(set) var phase = Phase.open
    /// When its last whole frame (a message or a control frame) arrived.
    private(set) var lastHeard: ContinuousClock.Instant
    /// When the client last took some of what waits for it, or when waiting began.
    private(set) var lastProgress: ContinuousClock.Instant
    let limits: WebSocketLimits

    init(now: ContinuousClock.Instant, limits: WebSocketLimits) {
        (lastHeard, lastProgress, self.limits) = (now, now, limits)
    }

    var isOpen: Bool { if case .open = phase { true } else { false } }

    /// A whole frame arrived: bytes that trickle in and never finish one keep nobody in.
    mutating func heard(now: ContinuousClock.Instant) { lastHeard = now }

    /// Bytes were queued for the client; with nothing waiting before, the send timeout starts now.
    mutating func queued(now: ContinuousClock.Instant, wasEmpty: Bool) {
        if wasEmpty { lastProgress = now }
    }

    /// The socket took some of what waits.
    mutating func progressed(now: ContinuousClock.Instant) { lastProgress = now }

    /// A close frame is queued (or owed): no more messages either way.
    mutating func closing() {
        if phase == .open { phase = .closing }
    }

    /// Everything queued is out: a closing connection half-closes and lingers.
    mutating func queueEmptied(now: ContinuousClock.Instant) -> Action {
        guard phase == .closing else { return .wait(until: deadline(queued: false)) }
        phase = .lingering(until: now + limits.lingerTimeout)
        return .halfClose(until: now + limits.lingerTimeout)
    }

    /// The connection is gone.
    mutating func ended() { phase = .closed }

    /// When its current wait runs out.
    func deadline(queued: Bool) -> ContinuousClock.Instant {
        if case .lingering(let until) = phase { return until }
        let silence = lastHeard + limits.silenceLimit
        return queued ? min(silence, lastProgress + limits.sendTimeout) : silence
    }

    /// A deadline the host armed came (or a later one: the phase's own is checked).
    mutating func deadlinePassed(now: ContinuousClock.Instant, queued: Bool) -> Action {
        let due = deadline(queued: queued)
        guard now >= due, phase != .closed else { return .wait(until: due) }
        let ending: Ending
        switch phase {
        case .open where queued && now >= lastProgress + limits.sendTimeout: ending = .tooSlow
        case .open: ending = .silent
        default: ending = .closingOver
        }
        phase = .closed
        return .end(ending)
    }
}
