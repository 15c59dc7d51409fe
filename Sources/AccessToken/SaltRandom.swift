#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The random source of new tokens' salts: the system's (`arc4random_buf`, which is `getrandom`), drawn 4 KB at a
/// time instead of once per salt. A server issuing tokens made one `getrandom` call per token, a third of its system
/// calls per answer. Each thread draws from a pool of its own, without a lock; a child made by `fork` never touches
/// the pools (its copy of the forking thread's holds the parent's words) and draws each word from the system.
struct SaltRandom: RandomNumberGenerator {
    mutating func next() -> UInt64 { SaltPool.next() }
}

private final class SaltPool {
    private static let capacity = 512
    private static let pools: PerThread<SaltPool> = {
        pthread_atfork(nil, nil) { SaltPool.forked.store(true, ordering: .relaxed) }
        return PerThread { SaltPool() }
    }()
    /// Set in a child made by `fork` once any pool can exist.
    private static let forked = Atomic<Bool>(false)

    private let words = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
    /// Words not yet handed out, from the end of `words`.
    private var left = 0

    deinit { words.deallocate() }

    static func next() -> UInt64 {
        guard !forked.load(ordering: .relaxed) else {
            var word: UInt64 = 0
            arc4random_buf(&word, MemoryLayout<UInt64>.size)
            return word
        }
        return pools.object.draw()
    }

    private func draw() -> UInt64 {
        if left == 0 {
            arc4random_buf(words, Self.capacity * MemoryLayout<UInt64>.size)
            left = Self.capacity
        }
        left -= 1
        defer { words[left] = 0 }
        return words[left]
    }
}
