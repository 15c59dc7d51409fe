/// How fast a clock runs against the one under it: at a speed, or paused (keeping the speed it resumes at).
public enum ClockPhase: Sendable, Equatable {
    case running(speed: Int)
    case paused(speed: Int)

    /// The speeds a clock runs at: `join --speed` and `replay --speed` take them, `<` and `>` stay within them.
    public static let speeds: ClosedRange<Int> = 1...3600

    /// The speed it runs at, or resumes at.
    public var speed: Int {
        switch self {
        case .running(let speed), .paused(let speed): speed
        }
    }

    public var isPaused: Bool {
        if case .paused = self { true } else { false }
    }

    /// The phase after a speed key: `<` halves and `>` doubles the speed within `speeds`, space pauses or resumes.
    public func after(_ change: ClockChange) -> ClockPhase {
        switch (change, self) {
        case (.slower, .running(let speed)): .running(speed: Self.clamped(speed / 2))
        case (.slower, .paused(let speed)): .paused(speed: Self.clamped(speed / 2))
        case (.faster, .running(let speed)): .running(speed: Self.clamped(speed * 2))
        case (.faster, .paused(let speed)): .paused(speed: Self.clamped(speed * 2))
        case (.pause, .running(let speed)): .paused(speed: speed)
        case (.pause, .paused(let speed)): .running(speed: speed)
        }
    }

    /// `speed` brought into `speeds`.
    public static func clamped(_ speed: Int) -> Int { min(max(speed, speeds.lowerBound), speeds.upperBound) }
}

/// What a speed key asks of a clock.
public enum ClockChange: Sendable, Equatable {
    case slower, faster
    /// Pauses a running clock, resumes a paused one.
    case pause
}

/// A clock's time as a function of the time under it: where both stood when the phase last changed, and the phase.
public struct Pace: Sendable, Equatable {
    /// Time under the clock, and on it, when the phase last changed.
    public private(set) var under: Duration
    public private(set) var time: Duration
    public private(set) var phase: ClockPhase

    /// A clock at `time` zero when the time under it reads `under`.
    public init(phase: ClockPhase, under: Duration = .zero) {
        self.under = under
        time = .zero
        self.phase = phase
    }

    /// The clock's time when the time under it reads `now`.
    public func time(under now: Duration) -> Duration {
        switch phase {
        case .running(let speed): time + (now - under) * speed
        case .paused: time
        }
    }

    /// Changes the phase from `now` (under the clock) on; the clock's time so far stays.
    public mutating func apply(_ change: ClockChange, under now: Duration) {
        time = time(under: now)
        under = now
        phase = phase.after(change)
    }

    /// The time under the clock at which it reaches `target` (rounded up, so it has reached it then); nil while paused.
    public func under(reaching target: Duration) -> Duration? {
        underDuration(covering: target - time).map { under + $0 }
    }

    /// How long under the clock it takes to cover `stretch` of its own time (rounded up); nil while paused.
    public func underDuration(covering stretch: Duration) -> Duration? {
        guard case .running(let speed) = phase else { return nil }
        var wait = stretch / speed
        if wait * speed < stretch { wait += Duration(secondsComponent: 0, attosecondsComponent: 1) }
        return wait
    }
}
