import CLinux
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What other threads hand one loop thread: items, and an eventfd to wake it with.
public final class Mailbox<Item: Sendable>: Sendable {
    private let inbox = Mutex<[Item]>([])
    /// The loop waits for this to be readable: a count on it means "look at the inbox, or at whether to stop".
    public let wakeFD: Int32

    public init() throws(SocketError) {
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard wakeFD >= 0 else { throw SocketError("eventfd") }
    }

    deinit { _ = Glibc.close(wakeFD) }

    public func hand(_ item: Item) {
        let first = inbox.withLock { inbox in
            inbox.append(item)
            return inbox.count == 1
        }
        if first { wake() }  // with more waiting, the loop was woken already and has not yet taken them
    }

    public func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)  // a counter near its limit is awake already
    }

    /// Clears the wake-up and returns the items handed over since the last call.
    public func takeNew() -> [Item] {
        var count: UInt64 = 0
        _ = read(wakeFD, &count, 8)
        return inbox.withLock { inbox in
            defer { inbox.removeAll() }
            return inbox
        }
    }

    public var hasNew: Bool { inbox.withLock { !$0.isEmpty } }
}
