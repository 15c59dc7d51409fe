import Foundation

/// Why a recording cannot be written or read: what went wrong and what to do, never a token.
public enum RecordingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file cannot be opened for reading (`why` is the system's reason).
    case cannotOpen(path: String, why: String)
    /// Writing to the file failed part way (`events` were written before).
    case cannotWrite(path: String, why: String, events: Int)
    /// The file holds more than a recording may: `limit` in `what` (bytes, events).
    case tooLarge(limit: Int, what: String)
    /// The file is `size` bytes, more than the `limit` a recording may hold: refused before any of it is read.
    case fileTooLarge(size: Int64, limit: Int)
    /// Line `line` (from 1) is not what a recording holds there.
    case badLine(line: Int, problem: String)
    /// The last line, `line`, has no newline: the writer stopped in the middle of it.
    case cutShort(line: Int)
    /// The file was written by a newer tokencall, in a format version this one cannot read.
    case newerVersion(Int)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let why): "cannot open \(path): \(why)"
        case .cannotWrite(let path, let why, let events):
            "cannot write \(path) after \(events) events: \(why); the recording ends there"
        case .tooLarge(let limit, let what):
            "the recording holds more than \(limit) \(what), more than tokencall reads; it is not a recording tokencall wrote"
        case .fileTooLarge(let size, let limit):
            "the file is \(size) bytes, more than the \(limit) a recording may hold; it is not a recording tokencall wrote"
        case .badLine(let line, let problem): "line \(line): \(problem); it is not a recording tokencall wrote, or it was cut short or edited"
        case .cutShort(let line):
            "line \(line) has no newline: the recording was cut short (its join stopped while writing); "
                + (line > 1 ? "head -n -1 keeps its whole lines" : "it holds no whole line")
        case .newerVersion(let version):
            "the recording is format version \(version), newer than the \(RecordingHeader.version) this tokencall reads; replay it with a newer tokencall"
        }
    }
}

extension RecordingError {
    /// The system's reason for a failed read, without Foundation's wrapping.
    static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        return nsError.localizedDescription
    }
}

/// What is wrong with one line, before the reader adds its number.
struct LineProblem: Error {
    let words: String

    init(_ words: String) { self.words = words }
}
