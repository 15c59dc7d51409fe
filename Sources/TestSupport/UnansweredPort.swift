#if canImport(Glibc)
import Glibc
#endif

/// A port of 127.0.0.1 whose connects never answer while it lives: it listens with a backlog of one that a connection
/// fills at once, so the kernel drops every SYN that comes after (as a host behind a firewall that drops them).
public final class UnansweredPort: Sendable {
    public let port: UInt16
    private let listener: Int32
    private let filler: Int32

    /// Nil when no port or connection can be had.
    public init?() {
        guard let (listener, port) = Loopback.listen(backlog: 0) else { return nil }
        guard let filler = Loopback.connect(port: port) else {
            close(listener)
            return nil
        }
        (self.listener, self.port, self.filler) = (listener, port, filler)
    }

    deinit {
        close(filler)
        close(listener)
    }
}
