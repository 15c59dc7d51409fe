import CallSession
import Foundation

/// Writes a call's events to a file as they happen: the header line first, then one line per event. A write that
/// fails ends the recording there and is kept as `failure`, so the call goes on.
public final class Recorder {
    public let path: String
    private let handle: FileHandle
    private var written = 0
    /// Why the recording stopped early; nil while every line has been written.
    public private(set) var failure: RecordingError?

    /// Creates the file at `path` (empties it only when `replace` says so) and writes the header.
    public init(path: String, header: RecordingHeader, replace: Bool = false) throws(RecordingError) {
        self.path = path
        if !replace, FileManager.default.fileExists(atPath: path) {
            throw .cannotOpen(path: path, why: "it already exists (left as it is); give --overwrite to replace it, or another name")
        }
        guard FileManager.default.createFile(atPath: path, contents: Data((header.line + "\n").utf8)) else {
            throw .cannotOpen(path: path, why: Self.whyNotCreated(path))
        }
        do {
            handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seekToEnd()
        } catch {
            throw .cannotOpen(path: path, why: Self.reason(error))
        }
    }

    deinit { try? handle.close() }

    /// Appends the event's line; after a failure, nothing.
    public func record(_ event: SessionEvent) {
        guard failure == nil else { return }
        do {
            try handle.write(contentsOf: Data((event.recordedLine + "\n").utf8))
            written += 1
        } catch {
            failure = .cannotWrite(path: path, why: Self.reason(error), events: written)
        }
    }

    /// The system's reason, without Foundation's wrapping.
    static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        return nsError.localizedDescription
    }

    /// Why `createFile` said no: the parent folder is missing, or it cannot be written.
    private static func whyNotCreated(_ path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue { return "it is a folder" }
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) { return "the folder \(folder) does not exist" }
        return "permission denied, or the disk is full"
    }
}
