import Glibc
import Synchronization

/// A test server's listening socket whose connections each run on a thread of their own; `stop` shuts the listener
/// and every connection still served, and joins every thread, so that none runs on into the test process's exit.
public final class ThreadPerConnection: Sendable {
    private let listener: Int32
    private let served = Mutex<(open: Set<Int32>, stopped: Bool)>(([], false))
    private let threads = OwnedThreads()

    /// Takes `listener`, to be closed by `stop`.
    public init(listener: Int32) {
        self.listener = listener
    }

    /// Accepts, and runs `serve` on a thread of its own for each connection, closing it after.
    public func start(_ serve: @escaping @Sendable (Int32) -> Void) {
        threads.start { [self] in
            while true {
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else { return }
                guard served.withLock({ $0.stopped ? false : $0.open.insert(fd).inserted }) else {
                    close(fd)
                    return
                }
                threads.start { [self] in
                    serve(fd)
                    served.withLock { _ = $0.open.remove(fd) }
                    close(fd)
                }
            }
        }
    }

    /// Stops accepting, shuts the connections still served (so that their reads end and their writes fail) and waits
    /// for every thread to end. Once is enough; again does nothing.
    public func stop() {
        let first = served.withLock { served in
            defer { served.stopped = true }
            guard !served.stopped else { return false }
            for fd in served.open { shutdown(fd, Int32(SHUT_RDWR)) }
            return true
        }
        guard first else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        threads.joinAll()
        close(listener)
    }
}
