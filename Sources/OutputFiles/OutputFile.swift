import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A file tokencall writes as a call runs (a recording, a cast, a picture). It is opened before the call starts, so a
/// path that cannot be written is said at once. A path that names something already is written only when asked to,
/// and then written into, never replaced: a symbolic link is followed, a device or a named pipe stays what it is, and
/// a file keeps what it holds until the first write. Docs/usage.md ("Recordings and pictures").
public final class OutputFile: Sendable {
    /// What went wrong with the file, in words.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// Something is there and writing over it was not asked for.
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

        /// Why, without the path.
        public var reason: String {
            switch self {
            case .exists: "it already exists (left as it is)"
            case .cannotCreate(_, let reason), .cannotWrite(_, let reason): reason
            }
        }
    }

    private struct Opened {
        /// >= 0 while open.
        var descriptor: Int32
        /// The file this run created, by device and inode: the only thing `discard` removes.
        var created: (device: UInt64, inode: UInt64)?
        /// A regular file that was there: emptied at the first write, so a run that writes nothing leaves it whole.
        var emptyBeforeWriting: Bool
    }

    public let path: String
    private let opened: Mutex<Opened>

    /// Creates `path` (mode 0644 before the umask); what is there already is written into only with `overwrite`.
    public init(path: String, overwrite: Bool) throws(Failure) {
        self.path = path
        // O_NONBLOCK: a named pipe without a reader is refused at once instead of waiting for one.
        let flags = O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
        var descriptor: Int32 = -1, created = false
        for _ in 0..<3 where descriptor < 0 {
            descriptor = open(path, flags | O_CREAT | O_EXCL, 0o644)
            if descriptor >= 0 { created = true; break }
            // O_EXCL refuses a symbolic link too, even one that points nowhere.
            guard errno == EEXIST else { throw .cannotCreate(path: path, reason: Self.reason(errno, path)) }
            guard overwrite else { throw .exists(path: path) }
            descriptor = open(path, flags)
            guard descriptor < 0 else { break }
            let code = errno
            var link = stat()
            if code == ENOENT, lstat(path, &link) == 0, link.st_mode & S_IFMT == S_IFLNK {
                throw .cannotCreate(path: path, reason: "it is a symbolic link to a file that does not exist; give the file's own path")
            }
            guard code == ENOENT else { throw .cannotCreate(path: path, reason: Self.reason(code, path)) }
            // Removed in between: try creating it again.
        }
        guard descriptor >= 0 else { throw .cannotCreate(path: path, reason: "it keeps appearing and disappearing") }
        var status = stat()
        guard fstat(descriptor, &status) == 0, fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK) == 0 else {
            let reason = Self.reason(errno, path)
            Glibc.close(descriptor)
            throw .cannotCreate(path: path, reason: reason)
        }
        let isRegular = status.st_mode & S_IFMT == S_IFREG
        opened = Mutex(Opened(descriptor: descriptor, created: created ? (UInt64(status.st_dev), UInt64(status.st_ino)) : nil,
                              emptyBeforeWriting: !created && isRegular))
    }

    deinit { close() }

    /// Writes all of `bytes`, or throws the first error (a full disk, a pipe nobody reads any more); the file is
    /// closed after one.
    public func write(_ bytes: [UInt8]) throws(Failure) {
        let failure: Failure? = opened.withLock { file in
            guard file.descriptor >= 0 else { return .cannotWrite(path: path, reason: "it is closed") }
            var failure: String?
            if file.emptyBeforeWriting {
                if ftruncate(file.descriptor, 0) == 0 { file.emptyBeforeWriting = false } else { failure = Self.reason(errno, path) }
            }
            var sent = 0
            while failure == nil, sent < bytes.count {
                let count = Self.withoutSIGPIPE {
                    bytes.withUnsafeBytes { Glibc.write(file.descriptor, $0.baseAddress! + sent, bytes.count - sent) }
                }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    failure = count < 0 ? (errno == EPIPE ? "nothing reads it any more" : Self.reason(errno, path)) : "nothing was written"
                    break
                }
                sent += count
            }
            guard let failure else { return nil }
            Glibc.close(file.descriptor)
            file.descriptor = -1
            return .cannotWrite(path: path, reason: failure)
        }
        if let failure { throw failure }
    }

    /// Closes the file (again does nothing).
    public func close() {
        opened.withLock { file in
            guard file.descriptor >= 0 else { return }
            Glibc.close(file.descriptor)
            file.descriptor = -1
        }
    }

    /// Closes the file, and removes it when this run created it and the path still names it: the run that was to fill
    /// it ended before writing anything. What was there before is left as it was.
    public func discard() {
        opened.withLock { file in
            guard file.descriptor >= 0 else { return }
            var status = stat()
            if let created = file.created, lstat(path, &status) == 0,
               (UInt64(status.st_dev), UInt64(status.st_ino)) == created {
                unlink(path)
            }
            Glibc.close(file.descriptor)
            file.descriptor = -1
        }
    }

    /// Runs `write` with SIGPIPE held back on this thread, and takes away the one it raised: a reader that went away
    /// is a failed write, not the end of the process.
    private static func withoutSIGPIPE(_ write: () -> Int) -> Int {
        var pipe = sigset_t(), earlier = sigset_t(), pending = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        sigpending(&pending)
        let wasPending = sigismember(&pending, SIGPIPE) == 1
        pthread_sigmask(SIG_BLOCK, &pipe, &earlier)
        let count = write()
        let code = errno
        if count < 0, code == EPIPE, !wasPending {
            var now = timespec()
            _ = sigtimedwait(&pipe, nil, &now)
        }
        pthread_sigmask(SIG_SETMASK, &earlier, nil)
        errno = code
        return count
    }

    /// The system's reason in words, naming a missing folder or a folder given for a file.
    private static func reason(_ code: Int32, _ path: String) -> String {
        switch code {
        case ENOENT:
            let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
            return "the folder \(folder.isEmpty ? "/" : folder) does not exist"
        case EISDIR: return "it is a folder"
        case ENXIO: return "nothing reads it (a named pipe without a reader)"
        default: return String(cString: strerror(code))
        }
    }
}
