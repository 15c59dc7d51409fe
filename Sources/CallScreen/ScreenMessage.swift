import CallSession
import Timers
import TokenClient

/// What reaches the screen's model (`ScreenState.update`): from the person, the session or recording, and the clocks.
public enum ScreenMessage: Sendable, Equatable {
    case key(Key)
    /// An event of the call (live or recorded), which arrived when the call's wall read `unixTime`.
    case event(SessionEvent, unixTime: Double)
    /// The clocks now: each frame, and before a key is taken.
    case tick(ScreenTime)
    /// The terminal (or the picture) is `width`×`height` cells.
    case resize(width: Int, height: Int)
    /// A replay has played its recording's last event.
    case recordingEnded
}

/// What the model asks of the runner for a message.
public enum ScreenEffect: Sendable, Equatable {
    /// Something of the call: the session does it.
    case session(SessionCommand)
    /// The speed of the screen's clock (the call's or the replay's) halved or doubled, or a pause or resume.
    case clock(ClockChange)
    /// A pasted token, read and good to hand over.
    case paste(PastedToken)
    case quit
}

/// The clocks at one moment, as a tick brings them.
public struct ScreenTime: Sendable, Equatable {
    /// Unix time on the call's wall.
    public var unixTime: Double
    /// Unix time on the wall tokens are checked against (`TokenWall`): the call's, or a real one it has left.
    public var tokenUnixTime: Double
    /// Time since the session started (or into the recording).
    public var sessionTime: Duration
    /// The screen's clock: its speed, or that it is paused.
    public var clock: ClockPhase

    public init(unixTime: Double, tokenUnixTime: Double? = nil, sessionTime: Duration, clock: ClockPhase = .running(speed: 1)) {
        self.unixTime = unixTime
        self.tokenUnixTime = tokenUnixTime ?? unixTime
        self.sessionTime = sessionTime
        self.clock = clock
    }
}

/// A size in cells.
public struct ScreenSize: Sendable, Equatable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}
