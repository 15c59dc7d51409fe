import SeededRandom
@testable import Sockets
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The loop's two parts that are plain values: the mailbox other threads hand work through, and the deadline heap.
@Suite struct MailboxAndHeapTests {
    /// The wake-up's count, read away.
    static func wakes(_ mailbox: Mailbox<Int>) -> UInt64 {
        var count: UInt64 = 0
        return read(mailbox.wakeFD, &count, 8) == 8 ? count : 0
    }

    @Test func aBatchWakesTheLoopOnceAndIsTakenWhole() throws {
        let mailbox = try Mailbox<Int>()
        #expect(!mailbox.hasNew && Self.wakes(mailbox) == 0)
        for item in 1...3 { #expect(mailbox.hand(item)) }
        #expect(Self.wakes(mailbox) == 1, "one wake-up for the batch: the loop has not taken the first yet")
        #expect(mailbox.hasNew)
        #expect(mailbox.take() == [1, 2, 3])
        #expect(!mailbox.hasNew && mailbox.take() == [])
        #expect(mailbox.hand(4))
        #expect(Self.wakes(mailbox) == 1, "the next batch wakes it again")
    }

    @Test func aClosedMailboxGivesBackWhatWasNotTakenAndRefusesMore() throws {
        let mailbox = try Mailbox<Int>()
        #expect(mailbox.hand(1) && mailbox.hand(2))
        #expect(mailbox.close() == [1, 2])
        #expect(!mailbox.hand(3), "refused, so the one handing it can close what it carries")
        #expect(mailbox.take() == [])
    }

    @Test func deadlinesLeaveTheHeapEarliestFirstWhateverTheOrderTheyCameIn() {
        var random = SplitMix64(seed: 33)
        let origin = ContinuousClock.now
        for _ in 0..<50 {
            var heap = DeadlineHeap()
            var expected: [Duration] = []
            for id in 0..<UInt64(random.below(200)) {
                let offset = Duration.milliseconds(Int64(random.below(1000)))  // repeats included
                heap.insert(origin + offset, id)
                expected.append(offset)
            }
            var seen: [Duration] = []
            while let (deadline, _) = heap.first {
                seen.append(deadline - origin)
                heap.removeFirst()
            }
            #expect(seen == expected.sorted())
            #expect(heap.count == 0)
        }
    }
}
