import CallSession
import OutputFiles

/// Writes a call's events to a file as they happen: the header line with the first event, then one line per event. A
/// write that fails ends the recording there and is kept as `failure`, so the call goes on.
public final class Recorder {
    public var path: String { file.path }
    private let file: OutputFile
    /// The header, until it is written with the first event: a call that never starts leaves the file as it was.
    private var header: RecordingHeader?
    private var written = 0
    /// Why the recording stopped early; nil while every line has been written.
    public private(set) var failure: RecordingError?

    /// Records into `file` (`OutputFile` decides what it may write over), starting with `header`.
    public init(file: OutputFile, header: RecordingHeader) {
        self.file = file
        self.header = header
    }

    /// Appends the event's line (after the header, the first time); after a failure, nothing.
    public func record(_ event: SessionEvent) {
        guard failure == nil else { return }
        let lines = (header.map { $0.line + "\n" } ?? "") + event.recordedLine + "\n"
        do throws(OutputFile.Failure) {
            try file.write(Array(lines.utf8))
            header = nil
            written += 1
        } catch {
            failure = .cannotWrite(path: path, why: error.reason, events: written)
        }
    }

    /// Closes the file; the call has ended.
    public func close() { file.close() }
}
