import Glibc
import Synchronization

/// The threads a test helper starts, joined when it stops: a helper's thread still running as the test process exits
/// can crash the process in its teardown (SIGSEGV after every test passed).
public final class OwnedThreads: Sendable {
    private let running = Mutex<[pthread_t]>([])

    public init() {}

    /// Runs `body` on a thread of its own, to be joined by `joinAll`; false when no thread could be made.
    @discardableResult
    public func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        final class Work { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
        let work = Unmanaged.passRetained(Work(body)).toOpaque()
        var thread = pthread_t()
        guard pthread_create(&thread, nil, { work in
            Unmanaged<Work>.fromOpaque(work!).takeRetainedValue().body()
            return nil
        }, work) == 0 else {
            Unmanaged<Work>.fromOpaque(work).release()
            return false
        }
        running.withLock { $0.append(thread) }
        return true
    }

    /// Waits for every thread started so far to end, and for those they start meanwhile.
    public func joinAll() {
        while true {
            let threads = running.withLock { running in
                defer { running = [] }
                return running
            }
            if threads.isEmpty { return }
            for thread in threads { pthread_join(thread, nil) }
        }
    }
}
