import Foundation

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
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
