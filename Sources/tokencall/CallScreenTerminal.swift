import Arguments
import CallScreen
import Foundation

/// Whether the call screen can open, and its presenter: one place for `join` and `replay`.
enum CallScreenTerminal {
    /// Whether standard input and output are a terminal; when not, says on stderr that `command` prints instead.
    static func available(for command: String, why: String = "") -> Bool {
        let available = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        if !available {
            Console.error("\(command): stdout or stdin is not a terminal; printing events instead of the call screen" + why)
        }
        return available
    }

    /// The terminal set up for the screen, without colours for --no-color or NO_COLOR; a usage error saying why it cannot.
    static func presenter(_ args: Invocation) throws(UsageError) -> TerminalPresenter {
        let noColor = args[ScreenOptions.noColor] || !(ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
        do {
            return try TerminalPresenter(noColor: noColor)
        } catch {
            throw args.error(error.description)
        }
    }
}
