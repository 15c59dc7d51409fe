import Synchronization

/// Timers on one injected clock, run on the main actor in deadline order (ties in the order scheduled).
/// Timers can be scheduled and cancelled from any thread.
///
/// On a real clock one task sleeps until the earliest deadline. On a `SteppedClock` (a test's manual clock), or a
/// `ScaledClock` on one, no task is involved: the clock calls `fireDue()` itself as it passes each deadline, so tests are
/// exact.
public final class TimerQueue: Sendable {
    public struct ID: Hashable, Sendable { fileprivate let value: UInt64 }

    fileprivate struct Entry {
        let deadline: Duration
        let id: ID
        let action: @MainActor () -> Void
        /// Keeps a call clock at 1× from the deadline until the action has run (released with the entry).
        let hold: ClockHold?
    }

    fileprivate struct State {
        var entries: [Entry] = []
        var nextID: UInt64 = 0
        var driver: Task<Void, Never>?
        var driverDeadline: Duration?
        var firing = false
    }

    private let clock: ElapsedClock
    private let isStepped: Bool
    /// Holds the clock from a deadline of this queue, when it is a `ScaledClock`.
    private let hold: (@Sendable (Duration) -> ClockHold)?
    fileprivate let state = Mutex(State())

    /// Can be made on any thread. A stepped clock registers the queue on the main actor: at once when made there (as
    /// tests make theirs; `isolation` is the caller's, which Swift fills in), else as soon as the main actor is free.
    public init(clock: any Clock<Duration>, isolation: (any Actor)? = #isolation) {
        let stepped = clock as? any SteppedClock, scaled = clock as? ScaledClock
        if let scaled {
            let origin = scaled.now
            self.clock = ElapsedClock(scaled, from: origin)
            hold = { scaled.hold(from: origin.advanced(by: $0)) }
        } else {
            self.clock = ElapsedClock(clock)
            hold = nil
        }
        isStepped = stepped != nil || scaled?.isStepped == true
        guard isStepped else { return }
        let register: @MainActor @Sendable () -> Void = { [self] in
            if let stepped { stepped.register(self) } else { scaled?.register(self) }
        }
        if isolation is MainActor {
            MainActor.assumeIsolated(register)
        } else {
            Task { @MainActor in register() }
        }
    }

    /// Time since this queue was made, on its clock.
    public var now: Duration { clock.now() }

    /// Runs `action` once `delay` has passed.
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @MainActor () -> Void) -> ID {
        schedule(at: now + max(delay, .zero), action)
    }

    /// Runs `action` when `now` reaches `deadline`. With `holdingClock`, a `ScaledClock` counts at 1× from the deadline
    /// until the action has run (or the timer is cancelled), so however busy the main actor is, the action comes at most
    /// that real delay late in the clock's time, not that delay times the speed.
    @discardableResult
    public func schedule(at deadline: Duration, holdingClock: Bool = false, _ action: @escaping @MainActor () -> Void) -> ID {
        let hold = holdingClock ? hold?(deadline) : nil
        return state.withLock { state in
            state.nextID += 1
            let entry = Entry(deadline: deadline, id: ID(value: state.nextID), action: action, hold: hold)
            let index = state.entries.firstIndex { $0.deadline > deadline } ?? state.entries.endIndex
            state.entries.insert(entry, at: index)
            rearm(&state)
            return entry.id
        }
    }

    /// Runs `action` on the main actor after what waits for it now (a signal's handler, a key, a task woken), as a job
    /// of its own; on a stepped clock, as a timer due now, so a test's advance still runs it at the same instant.
    public func afterYield(_ action: @escaping @MainActor () -> Void) {
        if isStepped {
            schedule(after: .zero, action)
        } else {
            Task { @MainActor in action() }
        }
    }

    public func cancel(_ id: ID?) {
        guard let id else { return }
        cancel([id])
    }

    public func cancel(_ ids: some Sequence<ID>) {
        let set = Set(ids)
        guard !set.isEmpty else { return }
        let holds = state.withLock { state in
            let holds = state.entries.compactMap { set.contains($0.id) ? $0.hold : nil }
            state.entries.removeAll { set.contains($0.id) }
            rearm(&state)
            return holds
        }
        holds.forEach { $0.release() }
    }

    /// How many timers are pending.
    public var count: Int { state.withLock { $0.entries.count } }

    fileprivate func nextDue() -> Entry? {
        let now = now
        return state.withLock { state in
            guard let first = state.entries.first, first.deadline <= now else { return nil }
            state.entries.removeFirst()
            return first
        }
    }

    fileprivate func rearm(_ state: inout State) {
        guard !state.firing, !isStepped else { return }
        guard let deadline = state.entries.first?.deadline else {
            state.driver?.cancel()
            state.driver = nil
            state.driverDeadline = nil
            return
        }
        if state.driver != nil, state.driverDeadline == deadline { return }
        state.driver?.cancel()
        state.driverDeadline = deadline
        let clock = clock
        state.driver = Task { @MainActor [weak self] in
            do { try await clock.sleep(deadline) } catch { return }
            guard let self else { return }
            let current = self.state.withLock { state in
                guard state.driverDeadline == deadline else { return false }
                state.driver = nil
                state.driverDeadline = nil
                return true
            }
            if current { self.fireDue() }
        }
    }
}

extension TimerQueue: ClockStepper {
    public var timeToNextDeadline: Duration? {
        state.withLock { $0.entries.first?.deadline }.map { $0 - now }
    }

    /// Runs every timer due by now, earliest first, including ones those timers schedule for now.
    public func fireDue() {
        let started = state.withLock { state in
            if state.firing { return false }
            state.firing = true
            return true
        }
        guard started else { return }
        while let entry = nextDue() {
            entry.action()
            entry.hold?.release()
        }
        state.withLock { state in
            state.firing = false
            rearm(&state)
        }
    }

}

/// Something with deadlines that a stepped clock runs as it passes them.
@MainActor
public protocol ClockStepper: AnyObject {
    /// Time from now to the earliest pending deadline; nil when nothing is pending.
    var timeToNextDeadline: Duration? { get }
    /// Runs everything due now.
    func fireDue()
}

/// A clock that moves only when told (a test's manual clock) and runs registered steppers synchronously,
/// each at its exact deadline, as it moves.
public protocol SteppedClock: Clock where Duration == Swift.Duration {
    @MainActor func register(_ stepper: any ClockStepper)
}

/// Any `Clock<Duration>` seen as time elapsed since it was wrapped.
public struct ElapsedClock: Sendable {
    /// Time elapsed since the clock was wrapped.
    public let now: @Sendable () -> Duration
    /// Sleeps until `now()` reaches the given elapsed time.
    public let sleep: @Sendable (Duration) async throws -> Void

    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        if let continuous = clock as? ContinuousClock {
            self.init(continuous: continuous)
            return
        }
        self.init(clock, from: clock.now)
    }

    /// Time elapsed since `origin` on `clock`.
    init<C: Clock>(_ clock: C, from origin: C.Instant) where C.Duration == Duration {
        self.init(now: { origin.duration(to: clock.now) },
                  sleep: { try await clock.sleep(until: origin.advanced(by: $0), tolerance: nil) })
    }

    /// The same for the default clock, read without the generic `Clock`'s witness and associated-type lookups
    /// (a quarter of a warm `TokenCache.token()` went there).
    private init(continuous clock: ContinuousClock) {
        let origin = ContinuousClock.now
        self.init(now: { ContinuousClock.now - origin },
                  sleep: { try await clock.sleep(until: origin + $0, tolerance: nil) })
    }

    private init(now: @escaping @Sendable () -> Duration, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }
}
