import CLinux
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What other threads hand one loop thread: items, and an eventfd to wake it with.
public final class Mailbox<Item: Sendable>: Sendable {
    private let inbox = Mutex<(items: [Item], closed: Bool)>(([], false))
    /// The loop waits for this to be readable: a count on it means "look at the inbox, or at whether to stop".
    public let wakeFD: Int32

    public init() throws(SocketError) {
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard wakeFD >= 0 else { throw SocketError("eventfd") }
    }

    deinit { _ = Glibc.close(wakeFD) }

    /// Hands `item` over; false (and the item dropped) once the mailbox is closed.
    @discardableResult
    public func hand(_ item: Item) -> Bool {
        let first = inbox.withLock { inbox -> Bool? in
            guard !inbox.closed else { return nil }
            inbox.items.append(item)
            return inbox.items.count == 1
        }
        guard let first else { return false }
        if first { wake() }  // with more waiting, the loop was woken already and has not yet taken them
        return true
    }

    /// Takes no more items; returns those not yet taken.
    public func close() -> [Item] {
        inbox.withLock { inbox in
            inbox.closed = true
            defer { inbox.items.removeAll() }
            return inbox.items
        }
    }

    public func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)  // a counter near its limit is awake already
    }

    /// Clears the wake-up and returns the items handed over since the last call.
    public func takeNew() -> [Item] {
        clearWake()
        return take()
    }

    /// Reads the wake-up's count away (the loop saw the eventfd readable).
    public func clearWake() {
        var count: UInt64 = 0
        _ = read(wakeFD, &count, 8)
    }

    /// The items handed over since the last call, without touching the wake-up.
    public func take() -> [Item] {
        inbox.withLock { inbox in
            defer { inbox.items.removeAll() }
            return inbox.items
        }
    }

    public var hasNew: Bool { inbox.withLock { !$0.items.isEmpty } }
}
