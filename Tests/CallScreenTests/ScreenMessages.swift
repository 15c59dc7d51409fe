import CallSession
import Timers
@testable import CallScreen

/// The messages tests drive a screen with, as its runner sends them.
extension ScreenState {
    /// An event arriving when the call's wall reads `unixTime` (by default, the state's time now).
    mutating func take(_ event: SessionEvent, at unixTime: Double? = nil) {
        _ = update(.event(event, unixTime: unixTime ?? now))
    }

    /// A tick at `unixTime` that leaves the call's time where it is, at the screen's clock (or `clock`).
    mutating func tick(unixTime: Double, clock: ClockPhase? = nil) {
        _ = update(.tick(ScreenTime(unixTime: unixTime, sessionTime: sessionTime, clock: clock ?? self.clock)))
    }

    /// Presses the keys of `text` in turn; returns the effects they yielded.
    @discardableResult
    mutating func type(_ text: String) -> [ScreenEffect] {
        text.flatMap { update(.key(.character($0))) }
    }

    @discardableResult
    mutating func press(_ key: Key) -> [ScreenEffect] { update(.key(key)) }
}
