/// A clock's time as a function of the time under it: where both stood when the pace last changed, the phase, and the
/// holds that keep it from counting faster than the time under it.
struct Pace: Sendable, Equatable {
    /// Time under the clock, and on it, when the pace last changed.
    private(set) var under: Duration
    private(set) var time: Duration
    private(set) var phase: ClockPhase
    /// The clock's time each hold counts at 1× from, by the hold's number.
    private var holds: [UInt64: Duration] = [:]
    private var nextHold: UInt64 = 0

    /// A clock at `time` zero when the time under it reads `under`.
    init(phase: ClockPhase, under: Duration = .zero) {
        self.under = under
        time = .zero
        self.phase = phase
    }

    /// The clock's time from which it runs no faster than the time under it: the earliest hold's; nil with none.
    private var heldFrom: Duration? { holds.values.min() }

    /// The clock's time when the time under it reads `now`.
    func time(under now: Duration) -> Duration {
        guard case .running(let speed) = phase else { return time }
        let fast = time + (now - under) * speed
        guard let held = heldFrom, fast > held else { return fast }
        let from = max(held, time)
        return from + (now - under - Self.wait(covering: from - time, at: speed))
    }

    /// Changes the phase from `now` (under the clock) on; the clock's time so far stays.
    mutating func apply(_ change: ClockChange, under now: Duration) {
        anchor(under: now)
        phase = phase.after(change)
    }

    /// Holds the clock to the pace of the time under it from its time `instant` on (at once, when it is past); returns
    /// the hold's number for `release`.
    mutating func hold(from instant: Duration, under now: Duration) -> UInt64 {
        anchor(under: now)
        nextHold += 1
        holds[nextHold] = instant
        return nextHold
    }

    mutating func release(_ hold: UInt64, under now: Duration) {
        anchor(under: now)
        holds[hold] = nil
    }

    /// The time under the clock at which it reaches `target` (rounded up, so it has reached it then); nil while paused.
    func under(reaching target: Duration) -> Duration? {
        guard case .running(let speed) = phase else { return nil }
        guard let held = heldFrom, target > max(held, time) else {
            return under + Self.wait(covering: target - time, at: speed)
        }
        let from = max(held, time)
        return under + Self.wait(covering: from - time, at: speed) + (target - from)
    }

    /// Where both times stand now becomes the point the pace counts from.
    private mutating func anchor(under now: Duration) {
        time = time(under: now)
        under = now
    }

    /// How long under the clock it takes to cover `stretch` of its own time at `speed` (rounded up).
    private static func wait(covering stretch: Duration, at speed: Int) -> Duration {
        var wait = stretch / speed
        if wait * speed < stretch { wait += Duration(secondsComponent: 0, attosecondsComponent: 1) }
        return wait
    }
}
