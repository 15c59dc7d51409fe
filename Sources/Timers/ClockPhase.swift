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
    func after(_ change: ClockChange) -> ClockPhase {
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
    static func clamped(_ speed: Int) -> Int { min(max(speed, speeds.lowerBound), speeds.upperBound) }
}

/// What a speed key asks of a clock.
public enum ClockChange: Sendable, Equatable {
    case slower, faster
    /// Pauses a running clock, resumes a paused one.
    case pause
}
