import Synchronization
import Testing
import TestSupport
@testable import AccessToken

/// The caches of the token path are each thread's own: one object a thread, kept while it runs, released as it ends.
@Suite struct PerThreadTests {
    private final class Counts: Sendable {
        let made = Atomic(0)
        let released = Atomic(0)
    }

    private final class Tracked {
        let counts: Counts
        init(_ counts: Counts) {
            self.counts = counts
            counts.made.add(1, ordering: .relaxed)
        }
        deinit { counts.released.add(1, ordering: .relaxed) }
    }

    @Test func eachThreadKeepsItsOwnObjectUntilItEnds() {
        let counts = Counts()
        let cache = PerThread { Tracked(counts) }
        let threads = OwnedThreads()
        let sameWithinAThread = Atomic(0)
        for _ in 0..<3 {
            threads.start {
                if cache.object === cache.object { sameWithinAThread.add(1, ordering: .relaxed) }
            }
        }
        threads.joinAll()
        #expect(sameWithinAThread.load(ordering: .relaxed) == 3)
        #expect(counts.made.load(ordering: .relaxed) == 3)
        #expect(counts.released.load(ordering: .relaxed) == 3)
    }
}
