import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A file tokencall writes as a call runs (a recording, a picture). It is created before the call starts, so a path
/// that cannot be written is said at once, and never replaces a file unless asked to.
public final class OutputFile: Sendable {
    /// What went wrong with the file, in words.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The file is there and replacing it was not asked for.
        case exists(path: String)
        case cannotCreate(path: String, reason: String)
        case cannotWrite(path: String, reason: String)

        public var description: String {
            switch self {
            case .exists(let path): "\(path) already exists (left as it is)"
            case .cannotCreate(let path, let reason): "cannot create \(path): \(reason)"
            case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
            }
        }
    }

    public let path: String
    /// Open while >= 0; writes and closing hold the lock.
    private let descriptor: Mutex<Int32>

    /// Creates `path` (mode 0644 before the umask); an existing file is emptied and replaced only with `overwrite`.
    public init(path: String, overwrite: Bool) throws(Failure) {
        self.path = path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (overwrite ? O_TRUNC : O_EXCL), 0o644)
        guard descriptor >= 0 else {
            let code = errno
            throw code == EEXIST ? .exists(path: path) : .cannotCreate(path: path, reason: Self.reason(code))
        }
        self.descriptor = Mutex(descriptor)
    }

    deinit { close() }

    /// Writes all of `bytes`, or throws the first error (a full disk); the file is closed after one.
    public func write(_ bytes: [UInt8]) throws(Failure) {
        let failure: Failure? = descriptor.withLock { descriptor in
            guard descriptor >= 0 else { return .cannotWrite(path: path, reason: "it is closed") }
            var sent = 0
            while sent < bytes.count {
                let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + sent, bytes.count - sent) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    let reason = count < 0 ? Self.reason(errno) : "nothing was written"
                    Glibc.close(descriptor)
                    descriptor = -1
                    return .cannotWrite(path: path, reason: reason)
                }
                sent += count
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Closes the file (again does nothing).
    public func close() {
        descriptor.withLock { descriptor in
            guard descriptor >= 0 else { return }
            Glibc.close(descriptor)
            descriptor = -1
        }
    }

    /// Closes and removes the file: the run that was to fill it ended before writing anything.
    public func discard() {
        close()
        unlink(path)
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
