import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What other threads hand one poll(2) thread: items, and a pipe to wake it with.
public final class Mailbox<Item: Sendable>: Sendable {
    private let inbox = Mutex<[Item]>([])
    /// The thread polls the read end; a byte on it means "look at the inbox, or at whether to stop".
    public let wakeRead: Int32
    private let wakeWrite: Int32

    public init() throws(SocketError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SocketError("pipe") }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        (wakeRead, wakeWrite) = (ends[0], ends[1])
    }

    deinit {
        _ = Glibc.close(wakeRead)
        _ = Glibc.close(wakeWrite)
    }

    public func hand(_ item: Item) {
        inbox.withLock { $0.append(item) }
        wake()
    }

    public func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)  // a full pipe is awake already
    }

    /// Empties the pipe and returns the items handed over since the last call.
    public func takeNew() -> [Item] {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &bytes, { read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
        return inbox.withLock { inbox in
            defer { inbox.removeAll() }
            return inbox
        }
    }

    public var hasNew: Bool { inbox.withLock { !$0.isEmpty } }
}
