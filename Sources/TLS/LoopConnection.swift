import Sockets

/// A wire on its event loop: the socket's registration, what it waits for, and one armed deadline, until `release`.
/// Every server and client connection lives on one: its owner's machine decides, and this carries out the waiting.
/// Made and used on the loop's thread only.
public final class LoopConnection {
    public let wire: Wire
    public let loop: EventLoop
    /// What the socket waits for now.
    public private(set) var interest: EventLoop.Interest
    private var phase: Phase
    private var timer: (EventLoop.Timer, ContinuousClock.Instant)?
    private var deadlineCame: (() -> Void)?

    private enum Phase {
        case registered(EventLoop.Registration)
        /// Off the loop, the socket open.
        case released
        /// Off the loop, the socket closed.
        case closed
    }

    /// Registers the wire's socket on `loop`, waiting for `interest`: `ready` hears what the socket is ready for, and
    /// `deadline` that the deadline armed has come.
    public init(_ wire: Wire, on loop: EventLoop, waitingFor interest: EventLoop.Interest = .read,
                ready: @escaping (EventLoop.Readiness) -> Void, deadline: @escaping () -> Void) {
        self.wire = wire
        self.loop = loop
        self.interest = interest
        deadlineCame = deadline
        phase = .registered(loop.register(wire.socket.fd, for: interest, ready))
    }

    /// Until `release`.
    public var isRegistered: Bool { registration != nil }

    private var registration: EventLoop.Registration? {
        if case .registered(let registration) = phase { registration } else { nil }
    }

    /// When the deadline armed comes, if one is.
    public var armed: ContinuousClock.Instant? { timer?.1 }

    /// Waits for `wanted` from now on.
    public func wait(for wanted: EventLoop.Interest) {
        guard let registration, wanted != interest else { return }
        interest = wanted
        loop.change(registration, to: wanted)
    }

    /// Arms `due`: an earlier deadline replaces the one armed, a later one waits for it (whoever hears the armed one
    /// arms theirs again).
    public func arm(at due: ContinuousClock.Instant) {
        guard registration != nil else { return }
        if let (_, armed) = timer, armed <= due { return }
        disarm()
        timer = (loop.schedule(at: due) { [self] in
            timer = nil
            deadlineCame?()
        }, due)
    }

    /// No deadline armed.
    public func disarm() {
        if let (held, _) = timer { loop.cancel(held) }
        timer = nil
    }

    /// Leaves the loop: no more readiness or deadlines. The socket stays open, for its owner to close or hand over.
    public func release() {
        guard let registration else { return }
        loop.deregister(registration)
        phase = .released
        disarm()
        deadlineCame = nil
    }

    /// Leaves the loop and closes the socket, once.
    public func close() {
        release()
        guard case .released = phase else { return }
        phase = .closed
        wire.socket.close()
    }
}
