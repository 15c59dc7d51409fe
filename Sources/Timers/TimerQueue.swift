/// Timers on one injected clock, run on the main actor in deadline order (ties in the order scheduled).
///
/// On a real clock one task sleeps until the earliest deadline. On a `SteppedClock` (a test's manual clock)
/// no task is involved: the clock calls `fireDue()` itself as it passes each deadline, so tests are exact.
@MainActor
public final class TimerQueue: ClockStepper {
    public struct ID: Hashable, Sendable { fileprivate let value: UInt64 }

    private struct Entry {
        let deadline: Duration
        let id: ID
        let action: @MainActor () -> Void
    }

    private let clock: ElapsedClock
    private let isStepped: Bool
    private var entries: [Entry] = []
    private var nextID: UInt64 = 0
    private var driver: Task<Void, Never>?
    private var driverDeadline: Duration?
    private var firing = false

    public init(clock: any Clock<Duration>) {
        self.clock = ElapsedClock(clock)
        if let stepped = clock as? any SteppedClock {
            isStepped = true
            stepped.register(self)
        } else {
            isStepped = false
        }
    }

    /// Time since this queue was made, on its clock.
    public var now: Duration { clock.now() }

    /// Runs `action` once `delay` has passed.
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @MainActor () -> Void) -> ID {
        schedule(at: now + max(delay, .zero), action)
    }

    /// Runs `action` when `now` reaches `deadline`.
    @discardableResult
    public func schedule(at deadline: Duration, _ action: @escaping @MainActor () -> Void) -> ID {
        nextID += 1
        let entry = Entry(deadline: deadline, id: ID(value: nextID), action: action)
        let index = entries.firstIndex { $0.deadline > deadline } ?? entries.endIndex
        entries.insert(entry, at: index)
        rearm()
        return entry.id
    }

    public func cancel(_ id: ID?) {
        guard let id, let index = entries.firstIndex(where: { $0.id == id }) else { return }
        entries.remove(at: index)
        rearm()
    }

    public func cancel(_ ids: some Sequence<ID>) {
        let set = Set(ids)
        guard !set.isEmpty else { return }
        entries.removeAll { set.contains($0.id) }
        rearm()
    }

    /// How many timers are pending.
    public var count: Int { entries.count }

    public var timeToNextDeadline: Duration? {
        entries.first.map { $0.deadline - now }
    }

    /// Runs every timer due by now, earliest first, including ones those timers schedule for now.
    public func fireDue() {
        guard !firing else { return }
        firing = true
        while let first = entries.first, first.deadline <= now {
            entries.removeFirst()
            first.action()
        }
        firing = false
        rearm()
    }

    private func rearm() {
        guard !firing, !isStepped else { return }
        guard let deadline = entries.first?.deadline else {
            driver?.cancel()
            driver = nil
            driverDeadline = nil
            return
        }
        if driver != nil, driverDeadline == deadline { return }
        driver?.cancel()
        driverDeadline = deadline
        let clock = clock
        driver = Task { @MainActor [weak self] in
            do { try await clock.sleep(deadline) } catch { return }
            guard let self, self.driverDeadline == deadline else { return }
            self.driver = nil
            self.driverDeadline = nil
            self.fireDue()
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
        let origin = clock.now
        now = { origin.duration(to: clock.now) }
        sleep = { try await clock.sleep(until: origin.advanced(by: $0), tolerance: nil) }
    }
}
