import Synchronization
import Timers

/// A clock that moves only when a test says so, so an hour of timers runs in microseconds.
///
/// `advance(by:)` moves time deadline by deadline. Timer queues on this clock fire synchronously at each
/// of their deadlines, exactly; tasks asleep on it are woken in deadline order and given a few yields to
/// run. Its wall time (`unixTime`) moves with it.
public final class ManualClock: SteppedClock, Sendable {
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
        while true {
            steppers.removeAll { $0.stepper == nil }
            let current = now
            let stepperNext = steppers.compactMap { $0.stepper?.timeToNextDeadline }.min().map { current.advanced(by: max($0, .zero)) }
            let sleeperNext = state.withLock { $0.sleepers.map(\.deadline).min() }
            guard let next = [stepperNext, sleeperNext].compactMap({ $0 }).min(), next <= target else { break }
            state.withLock { $0.now = max($0.now, next) }
            for box in steppers { box.stepper?.fireDue() }
            if wakeSleepers() { await settle() }
        }
        state.withLock { $0.now = max($0.now, target) }
        for box in steppers { box.stepper?.fireDue() }
        if wakeSleepers() { await settle() }
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

extension ManualClock {
    /// Waits (yielding, bounded) until at least `count` tasks sleep on this clock; false if they never do.
    @discardableResult
    public func waitForSleepers(_ count: Int = 1) async -> Bool {
        await eventually { sleeperCount >= count }
    }
}

/// Waits until `condition` holds, yielding to other tasks (and, once the machine seems busy, sleeping a millisecond
/// now and then) for up to 10 s of real time, so that a failing test ends; returns whether it came to hold. A bound
/// against hanging, not a measure: what a test asserts is the condition.
@discardableResult
public func eventually(isolation: isolated (any Actor)? = #isolation, _ condition: () -> Bool) async -> Bool {
    let limit = ContinuousClock.now + .seconds(10)
    var turns = 0
    while !condition() {
        guard ContinuousClock.now < limit else { return false }
        turns += 1
        if turns.isMultiple(of: 1000) { try? await Task.sleep(for: .milliseconds(1)) } else { await Task.yield() }
    }
    return true
}
