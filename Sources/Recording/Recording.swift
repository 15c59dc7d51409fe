import CallSession
import Foundation

/// A recorded call: its header and its events in order, read strictly from a file nobody vouches for.
public struct Recording: Sendable, Equatable {
    public var header: RecordingHeader
    public var events: [SessionEvent]

    /// The most a recording may hold: a week of call with every periodic report fits.
    public static let byteLimit = 256 << 20
    public static let lineLimit = 64 << 10
    public static let eventLimit = 2_000_000

    public init(header: RecordingHeader, events: [SessionEvent]) {
        self.header = header
        self.events = events
    }

    /// The recording in the file at `path`: a file larger than `byteLimit` is refused by its size before any of it is
    /// read; of anything else (a pipe, a file still growing) no more than `byteLimit` and one byte to know is read.
    public static func read(path: String) throws(RecordingError) -> Recording {
        let bytes: Data
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            var status = stat()
            if fstat(handle.fileDescriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size > byteLimit {
                throw RecordingError.fileTooLarge(size: Int64(status.st_size), limit: byteLimit)
            }
            bytes = try handle.read(upToCount: byteLimit + 1) ?? Data()
        } catch let error as RecordingError {
            throw error
        } catch {
            throw .cannotOpen(path: path, why: RecordingError.reason(error))
        }
        return try read(bytes)
    }

    /// The recording `bytes` hold: a header line, then one event per line, each ending in a newline.
    public static func read(_ bytes: some RandomAccessCollection<UInt8>) throws(RecordingError) -> Recording {
        guard bytes.count <= byteLimit else { throw .tooLarge(limit: byteLimit, what: "bytes") }
        guard !bytes.isEmpty else { throw .badLine(line: 1, problem: "the file is empty, with no header") }
        guard bytes.last == UInt8(ascii: "\n") else {
            throw .cutShort(line: bytes.count(where: { $0 == UInt8(ascii: "\n") }) + 1)
        }
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().makeIterator()
        var number = 1
        let header = try RecordingHeader.read(try checked(lines.next()!, line: number))
        var events: [SessionEvent] = []
        while let line = lines.next() {
            number += 1
            guard events.count < eventLimit else { throw .tooLarge(limit: eventLimit, what: "events") }
            let checkedLine = try checked(line, line: number)
            do throws(LineProblem) {
                events.append(try SessionEvent(recorded: checkedLine))
            } catch {
                throw .badLine(line: number, problem: error.words)
            }
        }
        return Recording(header: header, events: events)
    }

    private static func checked<Line: Collection<UInt8>>(_ line: Line, line number: Int) throws(RecordingError) -> Line {
        guard line.count <= lineLimit else { throw .badLine(line: number, problem: "longer than \(lineLimit) bytes") }
        guard !line.isEmpty else { throw .badLine(line: number, problem: "the line is empty") }
        return line
    }
}
