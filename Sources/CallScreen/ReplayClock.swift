import Synchronization
import Timers

/// What a replay key asks of the replay's clock.
public enum ReplayCommand: Equatable, Sendable {
    case slower, faster, pause
}

/// Where a replay is in its recording: a position that moves `speed` times as fast as the wall clock, and not at
/// all while paused. The wall clock is injected (time since the replay began), so tests move it by hand.
public final class ReplayClock: Sendable {
    /// The speeds a replay plays at, as `join --speed` takes them.
    public static let speeds = ScaledClock.speeds

    private struct State {
        /// The wall time and the position when the speed or the pause last changed.
        var wall: Duration
        var position: Duration
        var speed: Int
        var paused = false

        func position(at now: Duration) -> Duration { paused ? position : position + (now - wall) * speed }
    }

    private let wall: @Sendable () -> Duration
    private let state: Mutex<State>

    public init(speed: Int, wall: @escaping @Sendable () -> Duration) {
        self.wall = wall
        state = Mutex(State(wall: wall(), position: .zero, speed: speed.clamped(to: Self.speeds)))
    }

    /// Time into the recording now.
    public var position: Duration {
        let now = wall()
        return state.withLock { $0.position(at: now) }
    }

    /// The speed and whether the replay is paused, as the screen shows them.
    public var setting: (speed: Int, paused: Bool) { state.withLock { ($0.speed, $0.paused) } }

    /// Halves or doubles the speed (within `speeds`), or pauses or resumes, from the position now.
    public func perform(_ command: ReplayCommand) {
        let now = wall()
        state.withLock { state in
            state.position = state.position(at: now)
            state.wall = now
            switch command {
            case .slower: state.speed = max(Self.speeds.lowerBound, state.speed / 2)
            case .faster: state.speed = min(Self.speeds.upperBound, state.speed * 2)
            case .pause: state.paused.toggle()
            }
        }
    }

    /// Wall time until the position reaches `time` (zero or less once it has); nil while paused.
    public func wallTime(until time: Duration) -> Duration? {
        let now = wall()
        return state.withLock { state in state.paused ? nil : (time - state.position(at: now)) / state.speed }
    }
}

extension Int {
    fileprivate func clamped(to range: ClosedRange<Int>) -> Int { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}
