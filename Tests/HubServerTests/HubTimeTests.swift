@testable import HubServer
import HubProtocol
import SeededRandom
import Testing
import WebSocket

/// The hub's deadlines (on a heap, so that a tick costs what is due and not what is connected) and its one time (its
/// own, with the wall clock read only for tokens).
@Suite struct HubTimeTests {
    @Test func aTickChecksOnlyTheConnectionsWhoseDeadlineCameNotEveryConnection() {
        let hub = HubFixture()
        let members = (1...2_000).map { uid in
            let client = hub.connect()
            hub.join(client, channel: "room\(uid % 50)", uid: UInt32(uid))
            return client
        }
        #expect(members.allSatisfy { hub.outlet.take($0).first?.type == "joined" })
        hub.advance(by: 30)
        let idle = hub.connect()
        let before = hub.core.deadlinesChecked
        for _ in 0..<59 { hub.advance(by: 1) }
        #expect(hub.core.deadlinesChecked == before, "nothing was due: nothing was checked")
        hub.advance(by: 1)
        #expect(hub.outlet.closes == [idle: .policyViolation])
        #expect(hub.core.deadlinesChecked == before + 1, "one deadline came: one connection was checked, not 2,001")
    }

    @Test func aConnectionOutOfAnyChannelIsClosedAfterItsLimitWhateverTheWallClockDoes() {
        let hub = HubFixture()
        let idle = hub.connect()
        hub.time.stepWallClock(by: -3_600)
        hub.advance(by: 59)
        #expect(hub.outlet.closes.isEmpty)
        hub.advance(by: 1)
        #expect(hub.outlet.closes == [idle: .policyViolation], "60 s of the hub's time, not 3,660 of the wall clock's")
    }

    @Test func aWallClockSetForwardEndsTheTokensItPassedAndPlansTheOthersAgain() {
        let hub = HubFixture()
        let short = hub.connect(), long = hub.connect()
        hub.join(short, uid: 1, token: hub.token(uid: 1, lifetime: 100))
        hub.join(long, uid: 2, token: hub.token(uid: 2, lifetime: 600))
        _ = (hub.outlet.take(short), hub.outlet.take(long))
        hub.time.stepWallClock(by: 200)
        hub.tick()
        #expect(hub.outlet.take(short).map(\.reason) == ["tokenExpired"])
        #expect(hub.outlet.take(long) == [.userOffline(uid: 1, reason: .quit)])
        hub.advance(by: 369)  // 569 s of the wall clock's: a second before the warning
        #expect(hub.outlet.take(long).isEmpty)
        hub.advance(by: 1)
        #expect(hub.outlet.take(long).map(\.type) == ["tokenPrivilegeWillExpire"])
    }

    @Test func theHeapGivesEachKeyItsLatestDeadlineEarliestFirst() {
        var random = SplitMix64(seed: 33, stream: "deadline heap")
        var heap = DeadlineHeap<Int>()
        var expected: [Int: Duration] = [:]
        for _ in 0..<5_000 {
            let key = random.below(300)
            if random.below(4) == 0 {
                heap.remove(key)
                expected[key] = nil
            } else {
                let at = Duration.milliseconds(random.below(10_000))
                heap.set(key, at: at)
                expected[key] = at
            }
        }
        #expect(heap.count == expected.count)
        var popped: [(Int, Duration)] = []
        while let at = heap.earliest, let key = heap.popDue(.seconds(10)) { popped.append((key, at)) }
        #expect(popped.map(\.1) == popped.map(\.1).sorted())
        #expect(Dictionary(uniqueKeysWithValues: popped) == expected)
    }

    @Test func theHeapHandsOutNothingBeforeItsTime() {
        var heap = DeadlineHeap<String>()
        heap.set("later", at: .seconds(2))
        heap.set("sooner", at: .seconds(1))
        #expect(heap.popDue(.milliseconds(999)) == nil)
        #expect(heap.popDue(.seconds(1)) == "sooner")
        heap.set("later", at: .seconds(3))
        #expect(heap.popDue(.seconds(2)) == nil, "moved to later")
        #expect(heap.popDue(.seconds(3)) == "later")
        #expect(heap.earliest == nil)
    }
}
