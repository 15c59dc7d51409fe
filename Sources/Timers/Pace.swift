/// A clock's time as a function of the time under it: where both stood when the phase last changed, and the phase.
struct Pace: Sendable, Equatable {
    /// Time under the clock, and on it, when the phase last changed.
    private(set) var under: Duration
    private(set) var time: Duration
    private(set) var phase: ClockPhase

    /// A clock at `time` zero when the time under it reads `under`.
    init(phase: ClockPhase, under: Duration = .zero) {
        self.under = under
        time = .zero
        self.phase = phase
    }

    /// The clock's time when the time under it reads `now`.
    func time(under now: Duration) -> Duration {
        switch phase {
        case .running(let speed): time + (now - under) * speed
        case .paused: time
        }
    }

    /// Changes the phase from `now` (under the clock) on; the clock's time so far stays.
    mutating func apply(_ change: ClockChange, under now: Duration) {
        time = time(under: now)
        under = now
        phase = phase.after(change)
    }

    /// The time under the clock at which it reaches `target` (rounded up, so it has reached it then); nil while paused.
    func under(reaching target: Duration) -> Duration? {
        underDuration(covering: target - time).map { under + $0 }
    }

    /// How long under the clock it takes to cover `stretch` of its own time (rounded up); nil while paused.
    func underDuration(covering stretch: Duration) -> Duration? {
        guard case .running(let speed) = phase else { return nil }
        var wait = stretch / speed
        if wait * speed < stretch { wait += Duration(secondsComponent: 0, attosecondsComponent: 1) }
        return wait
    }
}
