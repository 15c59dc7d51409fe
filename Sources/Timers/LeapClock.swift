import Synchronization

/// A clock that moves only when told, leaping from deadline to deadline, so an hour of timers runs in microseconds:
/// a test's manual clock (TestSupport's `ManualClock`) and `tokencall test --speed max`'s.
///
/// `advance(by:)` moves time deadline by deadline. Timer queues on this clock fire synchronously at each
/// of their deadlines, exactly; tasks asleep on it are woken in deadline order and given a few yields to
/// run. Its wall time (`unixTime`) moves with it.
public final class LeapClock: SteppedClock, Sendable {
    public typealias Instant = OffsetInstant

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
    }

    private final class WeakStepper {
        weak var stepper: (any ClockStepper)?
        init(_ stepper: any ClockStepper) { self.stepper = stepper }
    }

    private let state = Mutex(State())
    @MainActor private var steppers: [WeakStepper] = []
    private let unixOrigin: Double

    /// A clock at offset zero whose wall time starts at `unixTime`.
    public init(unixTime: Double = 1_800_000_000) {
        unixOrigin = unixTime
    }

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// Seconds since 1970 on this clock's wall.
    public var unixTime: Double {
        unixOrigin + now.offset.secondsValue
    }

    /// How many tasks are asleep on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    @MainActor public func register(_ stepper: any ClockStepper) {
        steppers.append(WeakStepper(stepper))
    }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if deadline <= state.now { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
                if Task.isCancelled { cancel(id) }
            }
        } onCancel: {
            cancel(id)
        }
    }

    /// Moves time forward by `duration`, stopping at every deadline on the way, earliest first.
    @MainActor
    public func advance(by duration: Duration) async {
        let target = now.advanced(by: duration)
        while await leap(toward: target) {}
    }

    /// Moves time to the earliest deadline by `target` and runs what is due there, or to `target` when none comes
    /// before it; returns whether that was a deadline before `target` (more may follow).
    @MainActor @discardableResult
    public func leap(toward target: Instant) async -> Bool {
        steppers.removeAll { $0.stepper == nil }
        let current = now
        let stepperNext = steppers.compactMap { $0.stepper?.timeToNextDeadline }.min().map { current.advanced(by: max($0, .zero)) }
        let sleeperNext = state.withLock { $0.sleepers.map(\.deadline).min() }
        let next = [stepperNext, sleeperNext].compactMap { $0 }.min().flatMap { $0 <= target ? $0 : nil }
        state.withLock { $0.now = max($0.now, next ?? target) }
        for box in steppers { box.stepper?.fireDue() }
        if wakeSleepers() { await settle() }
        return next.map { $0 < target } ?? false
    }

    /// Yields so that tasks woken by this clock get to run before the caller goes on.
    public func settle() async {
        for _ in 0..<16 { await Task.yield() }
    }

    private func wakeSleepers() -> Bool {
        let due = state.withLock { state -> [Sleeper] in
            let due = state.sleepers.filter { $0.deadline <= state.now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= state.now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
        return !due.isEmpty
    }

    private func cancel(_ id: UInt64) {
        let sleeper = state.withLock { state -> Sleeper? in
            guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
            return state.sleepers.remove(at: index)
        }
        sleeper?.continuation.resume(throwing: CancellationError())
    }
}
