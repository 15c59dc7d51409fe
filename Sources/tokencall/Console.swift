import Foundation
import PrintableText

enum TokenCallVersion {
    static let current = "0.1.0"
}

/// Exit codes shared by every command (BSD sysexits for usage).
enum ExitCode {
    static let ok: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 64
}

enum Console {
    /// Writes one line to stderr, escaped for printing: text from outside in it (a TERM value, a host name, a
    /// command-line value) can neither act on the terminal nor start a line of its own.
    static func error(_ line: String) {
        write(line.escapedForPrinting + "\n")
    }

    private static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
