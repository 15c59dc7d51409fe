import Synchronization

/// A clock that runs `speed` times as fast as a base clock, counted from when it was made, with a wall time that
/// moves with it: at 3600× a base second is an hour on this clock, so a 24 h token lives 24 s of the base clock.
/// Its speed can change and it can pause while it runs (`perform`, the call screen's `<`, `>` and space): copies share
/// one pace, and whoever sleeps on it is woken to plan again, so a sleep ends when this clock reaches its deadline at
/// whatever speed it ran, and never while paused. A hold (`hold(from:)`) keeps it at its base's pace from an instant
/// until released. On a stepped base (a test's manual clock) its timer queues are run by the base as it passes their
/// deadlines, translated at the pace of the moment, as exactly as on the base itself.
public struct ScaledClock: Clock, Sendable {
    public typealias Instant = OffsetInstant

    private let shared: Shared
    private let unixOrigin: Double

    /// A clock at offset zero now, running `speed` (brought within `ClockPhase.speeds`) times as fast as `base`, whose
    /// wall time starts at `unixTime`.
    public init(speed: Int, base: some Clock<Duration> = ContinuousClock(), unixTime: Double) {
        shared = Shared(base: base, phase: .running(speed: ClockPhase.clamped(speed)))
        unixOrigin = unixTime
    }

    public var now: Instant { Instant(offset: shared.now()) }
    public var minimumResolution: Duration { .zero }

    /// Seconds since 1970 on this clock's wall: the start's, plus this clock's time since.
    public var unixTime: Double { unixOrigin + now.offset.secondsValue }

    /// Running at a speed, or paused.
    public var phase: ClockPhase { shared.pace.withLock { $0.phase } }

    /// How many times as fast as the base clock this one runs (or will, once resumed).
    public var speed: Int { phase.speed }

    /// Whether the base clock is stepped (a test's manual clock): timer queues on this clock are then stepped with it.
    var isStepped: Bool { shared.stepped != nil }

    /// Has the stepped base run `stepper` at its deadlines, which are in this clock's time; nothing on another base.
    @MainActor
    func register(_ stepper: any ClockStepper) {
        guard let stepped = shared.stepped else { return }
        let shared = shared
        let paced = PacedStepper(stepper) { [weak shared] left in shared?.baseDuration(covering: left) }
        shared.paced.withLock { kept in
            kept.removeAll { $0.isGone }
            kept.append(paced)
        }
        stepped.register(paced)
    }

    /// Halves or doubles the speed, or pauses or resumes, from now on; returns the phase it leaves the clock in.
    @discardableResult
    public func perform(_ change: ClockChange) -> ClockPhase {
        shared.change { pace, now in
            pace.apply(change, under: now)
            return pace.phase
        }
    }

    /// Keeps this clock from running faster than its base (1×) from `instant` on (at once, when it is past) until the
    /// hold is released: what the call waits for outside (a token exchange) or for the main actor to run (a warning due)
    /// is not multiplied by the speed. A paused clock stays paused.
    public func hold(from instant: Instant) -> ClockHold {
        let shared = shared
        let id = shared.change { pace, now in pace.hold(from: instant.offset, under: now) }
        return ClockHold { shared.change { pace, now in pace.release(id, under: now) } }
    }

    /// Sleeps until this clock reaches `deadline`: on the base clock until the time that speed puts it at, planned
    /// again whenever the speed changes or the clock pauses or resumes.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        while true {
            try Task.checkCancellation()
            guard let (wait, change) = shared.plan(reaching: deadline.offset) else { return }
            await shared.sleep(until: wait, unlessChangedAfter: change)
        }
    }
}

extension ScaledClock {
    /// The pace every copy of a clock shares, and the sleepers waiting for it to change.
    fileprivate final class Shared: Sendable {
        let base: ElapsedClock
        /// The base, when it is stepped, and the steppers it runs for this clock (it holds them weakly).
        let stepped: (any SteppedClock)?
        let paced = Mutex<[PacedStepper]>([])
        let pace: Mutex<Pace>
        private let waiting = Mutex(Waiting())

        private struct Sleeper {
            let continuation: CheckedContinuation<Void, Never>
            /// Asleep on the base clock until the planned time; nil while paused.
            var timer: Task<Void, Never>?
        }

        private struct Waiting {
            /// How many times the pace has changed.
            var changes: UInt64 = 0
            var nextID: UInt64 = 0
            var sleepers: [UInt64: Sleeper] = [:]
        }

        init(base: some Clock<Duration>, phase: ClockPhase) {
            self.base = ElapsedClock(base)
            stepped = base as? any SteppedClock
            pace = Mutex(Pace(phase: phase, under: self.base.now()))
        }

        func now() -> Duration {
            pace.withLock { $0.time(under: base.now()) }
        }

        /// Changes the pace at the base's now and wakes every sleeper to plan again.
        func change<T>(_ body: (inout Pace, Duration) -> T) -> T {
            let result = pace.withLock { body(&$0, base.now()) }
            let woken = waiting.withLock { waiting in
                waiting.changes += 1
                defer { waiting.sleepers = [:] }
                return Array(waiting.sleepers.values)
            }
            for sleeper in woken {
                sleeper.timer?.cancel()
                sleeper.continuation.resume()
            }
            return result
        }

        /// How long the base takes from now to cover `stretch` of this clock's time; nil while paused.
        func baseDuration(covering stretch: Duration) -> Duration? {
            let now = base.now()
            return pace.withLock { pace in
                pace.under(reaching: pace.time(under: now) + stretch).map { max($0 - now, .zero) }
            }
        }

        /// Nil once the clock has reached `target`; else the base time to wake at (nil while paused) and the count of
        /// changes the plan was made at.
        func plan(reaching target: Duration) -> (wait: Duration?, change: UInt64)? {
            let change = waiting.withLock { $0.changes }
            return pace.withLock { pace in
                pace.time(under: base.now()) >= target ? nil : (pace.under(reaching: target), change)
            }
        }

        /// Returns at `wait` on the base clock (never, when nil), once the pace changes after the `change`th change, or
        /// when the task is cancelled, whichever comes first.
        func sleep(until wait: Duration?, unlessChangedAfter change: UInt64) async {
            let id = waiting.withLock { waiting in
                waiting.nextID += 1
                return waiting.nextID
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let current = waiting.withLock { waiting in
                        guard waiting.changes == change else { return false }
                        waiting.sleepers[id] = Sleeper(continuation: continuation)
                        return true
                    }
                    guard current else { return continuation.resume() }
                    if let wait {
                        let base = base
                        let timer = Task { [weak self] in
                            try? await base.sleep(wait)
                            self?.wake(id)
                        }
                        let kept = waiting.withLock { waiting in
                            waiting.sleepers[id]?.timer = timer
                            return waiting.sleepers[id] != nil
                        }
                        if !kept { timer.cancel() }
                    }
                    if Task.isCancelled { wake(id) }
                }
            } onCancel: {
                wake(id)
            }
        }

        private func wake(_ id: UInt64) {
            guard let sleeper = waiting.withLock({ $0.sleepers.removeValue(forKey: id) }) else { return }
            sleeper.timer?.cancel()
            sleeper.continuation.resume()
        }
    }
}

/// A hold on a `ScaledClock` (`hold(from:)`): released once, by `release()` or when the last reference goes.
public final class ClockHold: Sendable {
    private let end: Mutex<(@Sendable () -> Void)?>

    init(_ end: @escaping @Sendable () -> Void) { self.end = Mutex(end) }

    public func release() {
        end.withLock { end in defer { end = nil }; return end }?()
    }

    deinit { release() }
}

/// A stepper on a scaled clock as its stepped base sees it: the time to its next deadline in the base's time.
@MainActor
private final class PacedStepper: ClockStepper {
    private weak var stepper: (any ClockStepper)?
    /// How long the base takes to cover a stretch of the scaled clock's time; nil while it is paused.
    private let baseDuration: @Sendable (Duration) -> Duration?

    init(_ stepper: any ClockStepper, baseDuration: @escaping @Sendable (Duration) -> Duration?) {
        self.stepper = stepper
        self.baseDuration = baseDuration
    }

    var isGone: Bool { stepper == nil }

    var timeToNextDeadline: Duration? {
        guard let left = stepper?.timeToNextDeadline else { return nil }
        return baseDuration(max(left, .zero))
    }

    func fireDue() { stepper?.fireDue() }
}
