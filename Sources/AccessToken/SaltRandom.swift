#if canImport(Glibc)
import Glibc
#endif

/// The random source of new tokens' salts: the system's (`arc4random_buf`, which is `getrandom`), drawn 4 KB at a
/// time instead of once per salt. A server issuing tokens made one `getrandom` call per token, a third of its system
/// calls per answer. One pool for the process behind a mutex held for a few loads; a child made by `fork` empties
/// its copy before its first draw, so parent and child never hand out the same salts.
struct SaltRandom: RandomNumberGenerator {
    mutating func next() -> UInt64 { SaltPool.shared.next() }
}

private final class SaltPool: @unchecked Sendable {
    static let shared = SaltPool()

    private static let capacity = 512
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let words = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
    /// Words not yet handed out, from the end of `words`; guarded by `lock`.
    private var left = 0

    private init() {
        pthread_mutex_init(lock, nil)
        // The fork's child runs on the thread that called fork, which holds the lock from `prepare` on.
        pthread_atfork(
            { pthread_mutex_lock(SaltPool.shared.lock) },
            { pthread_mutex_unlock(SaltPool.shared.lock) },
            {
                SaltPool.shared.left = 0
                pthread_mutex_unlock(SaltPool.shared.lock)
            })
    }

    func next() -> UInt64 {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        if left == 0 {
            arc4random_buf(words, Self.capacity * MemoryLayout<UInt64>.size)
            left = Self.capacity
        }
        left -= 1
        defer { words[left] = 0 }
        return words[left]
    }
}
