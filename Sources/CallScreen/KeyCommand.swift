import CallSession
import Timers

/// What a key asks for: something of the call, or a change to the screen alone.
public enum KeyCommand: Equatable, Sendable {
    case session(SessionCommand)
    /// Shows the help overlay.
    case help
    /// Opens the field to paste the next token.
    case paste
    /// Changes the speed of the screen's clock (the call's or the replay's), or pauses or resumes it.
    case clock(ClockChange)
    /// Shows or hides the token timeline.
    case timeline
    case quit
    /// A key that does nothing, named for the log.
    case unknown(String)

    /// What `key` does on a screen in `mode`, by the mode's `KeyBinding.table`.
    init(key: Key, in mode: KeyBinding.Mode = .call) {
        self = KeyBinding.table(mode).lazy.flatMap(\.keys).first { $0.key == key }?.command ?? .unknown(key.name)
    }
}
