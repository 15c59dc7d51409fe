import Timers

/// A clock that moves only when a test says so: Timers' `LeapClock`, under the name tests know it by.
public typealias ManualClock = LeapClock

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
