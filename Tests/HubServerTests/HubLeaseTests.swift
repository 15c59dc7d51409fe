import HubServer
import Sockets
import Synchronization
import Testing
import TokenServer
import WebServer
import WebSocket

/// A store of leases in memory, shared by hubs on one hand-moved time, as Redis is by hubs on one network.
final class MemoryLeaseStore: Sendable {
    struct Lease { var owner: String; var until: Double }
    let time: HandTime
    let leases = Mutex<[String: Lease]>([:])
    let answering = Mutex(true)
    init(time: HandTime) { self.time = time }

    func owner(of channel: String) -> String? {
        leases.withLock { table in table[channel].flatMap { $0.until > time.now ? $0.owner : nil } }
    }

    /// The leases of one hub, at `address`. Each answer is worked out when it is given: at once, within the call, or
    /// while `holding`, when the test calls `answerHeld` (a store far away).
    final class Leases: ChannelLeases, @unchecked Sendable {
        let store: MemoryLeaseStore
        let address: String
        let leaseDuration: Duration = .seconds(3)
        var holding = false
        private var held: [() -> Void] = []
        private(set) var claims = 0, renewals = 0
        init(_ store: MemoryLeaseStore, address: String) { (self.store, self.address) = (store, address) }

        func answerHeld() {
            let answers = held
            held = []
            for answer in answers { answer() }
        }

        private func answer(_ work: @escaping () -> Void) {
            if holding { held.append(work) } else { work() }
        }

        func start(on loop: EventLoop) {}

        func claim(_ channel: String, _ answer: @escaping (ChannelClaim) -> Void) {
            claims += 1
            self.answer { [self] in answer(claimNow(channel)) }
        }

        private func claimNow(_ channel: String) -> ChannelClaim {
            guard store.answering.withLock({ $0 }) else { return .unknown("no answer") }
            let now = store.time.now
            return store.leases.withLock { table in
                if let lease = table[channel], lease.until > now, lease.owner != address { return .elsewhere(lease.owner) }
                table[channel] = Lease(owner: address, until: now + 3)
                return .ours
            }
        }

        func renew(_ channels: [String], _ answer: @escaping (Result<[String], LeaseStoreError>) -> Void) {
            renewals += 1
            self.answer { [self] in answer(renewNow(channels)) }
        }

        private func renewNow(_ channels: [String]) -> Result<[String], LeaseStoreError> {
            guard store.answering.withLock({ $0 }) else { return .failure(LeaseStoreError("no answer")) }
            let now = store.time.now
            return .success(store.leases.withLock { table in
                channels.filter { channel in
                    guard let lease = table[channel], lease.owner == address, lease.until > now else { return true }
                    table[channel]?.until = now + 3
                    return false
                }
            })
        }

        func release(_ channels: [String]) {
            answer { [self] in
                store.leases.withLock { table in for channel in channels where table[channel]?.owner == address { table[channel] = nil } }
            }
        }

        func finish(within limit: Duration, then done: @escaping () -> Void) {
            answerHeld()
            done()
        }
    }
}

@Suite struct HubLeaseTests {
    let time = HandTime()
    let store: MemoryLeaseStore
    let a: HubFixture, b: HubFixture
    let aLeases: MemoryLeaseStore.Leases

    init() {
        store = MemoryLeaseStore(time: time)
        aLeases = MemoryLeaseStore.Leases(store, address: "ws://127.0.0.1:1/hub")
        a = HubFixture(time: time, leases: aLeases)
        b = HubFixture(time: time, leases: MemoryLeaseStore.Leases(store, address: "ws://127.0.0.1:2/hub"))
    }

    private func advanceBoth(by seconds: Double, step: Double = 0.25) {
        for _ in 0..<Int(seconds / step) {
            time.advance(by: step)
            a.tick()
            b.tick()
        }
    }

    @Test func aJoinForAChannelAnotherLiveHubHoldsIsRedirectedThereAndNeverServed() {
        let first = a.connect()
        a.join(first, uid: 1)
        #expect(a.outlet.take(first).first?.type == "joined")
        advanceBoth(by: 10)  // renewed all along
        let second = b.connect()
        b.join(second, uid: 2)
        #expect(b.outlet.take(second).isEmpty, "no joined, no presence from a second copy of the channel")
        #expect(b.outlet.closes[second] == WebSocketCloseCode(rawValue: 4302))
        #expect(b.outlet.closeReasons[second] == "ws://127.0.0.1:1/hub")
        #expect(a.outlet.take(first).isEmpty, "the first sees nobody join elsewhere")
        #expect(store.owner(of: "room") == "ws://127.0.0.1:1/hub")
    }

    @Test func aDeadHubsLeaseLapsesWithinItsLifeAndTheNextHubTakesTheChannel() {
        let first = a.connect()
        a.join(first, uid: 1)
        // Hub a dies: nobody ticks it any more.
        time.advance(by: 2.5)
        let early = b.connect()
        b.join(early, uid: 1)
        #expect(b.outlet.closes[early] == WebSocketCloseCode(rawValue: 4302))
        time.advance(by: 0.6)
        let late = b.connect()
        b.join(late, uid: 1)
        #expect(b.outlet.take(late).first?.type == "joined")
        #expect(store.owner(of: "room") == "ws://127.0.0.1:2/hub")
    }

    @Test func aChannelThatEmptiesIsGivenBackAndAStoppingHubGivesBackAll() {
        let one = a.connect(), two = a.connect()
        a.join(one, uid: 1)
        a.join(two, channel: "other", uid: 2)
        a.say(one, #"{"type":"leave"}"#)
        #expect(store.owner(of: "room") == nil)
        #expect(store.owner(of: "other") == "ws://127.0.0.1:1/hub")
        #expect(a.stopping(), "the hub heard the store took its leases back")
        #expect(store.owner(of: "other") == nil)
        let moved = b.connect()
        b.join(moved, channel: "other", uid: 2)
        #expect(b.outlet.take(moved).first?.type == "joined")
    }

    @Test func aStoreThatDoesNotAnswerClosesWith4503AndALeaseLostClosesItsClientsWith1001() {
        store.answering.withLock { $0 = false }
        let refused = a.connect()
        a.join(refused, uid: 1)
        #expect(a.outlet.closes[refused] == WebSocketCloseCode(rawValue: 4503))
        store.answering.withLock { $0 = true }
        let member = a.connect()
        a.join(member, uid: 1)
        #expect(a.outlet.take(member).first?.type == "joined")
        // Another hub took the channel meanwhile (a's renewals did not reach the store): a gives it up.
        store.leases.withLock { $0["room"] = .init(owner: "ws://127.0.0.1:2/hub", until: time.now + 3) }
        advanceBoth(by: 1.25)
        #expect(a.outlet.closes[member] == .goingAway)
    }

    @Test func aMemberOfAChannelWhoseLeaseIsLostSeesThe1001CloseFrameAtOnce() throws {
        let loopback = try LoopbackHub(time: time, leases: MemoryLeaseStore.Leases(store, address: "ws://127.0.0.1:3/hub"))
        let member = try loopback.member(uid: 1)
        store.leases.withLock { $0["room"] = .init(owner: "ws://127.0.0.1:2/hub", until: time.now + 3) }
        time.advance(by: 1.25)  // past the next renewal, a third of the lease
        loopback.timeChanged()
        let told = ContinuousClock.now
        let close = try #require(try member.closeFrame(), "no close frame")
        #expect(close.code == .goingAway)
        #expect(close.reason == "the channel moved to another hub; connect again")
        #expect(ContinuousClock.now - told < .seconds(1), "reconnecting at once, not after a bare TCP close")
    }

    /// A hub whose wall clock jumps by `jump` seconds while it holds a channel, and the store's time, which does not.
    private func jumping(by jump: Double) -> (HubFixture, WebSocketClientID) {
        let hubTime = HandTime()
        let hub = HubFixture(time: hubTime, leases: MemoryLeaseStore.Leases(store, address: "ws://127.0.0.1:3/hub"))
        let member = hub.connect()
        let answering = store.answering.withLock { state in defer { state = true }; return state }
        hub.join(member, uid: 1)
        #expect(hub.outlet.take(member).first?.type == "joined")
        store.answering.withLock { $0 = answering }
        hubTime.stepWallClock(by: jump)
        for _ in 0..<20 {
            time.advance(by: 0.25)
            hubTime.advance(by: 0.25)
            hub.tick()
        }
        return (hub, member)
    }

    @Test func aHubWhoseWallClockGoesBackAnHourKeepsRenewingItsLeases() {
        let (hub, member) = jumping(by: -3600)
        #expect(store.owner(of: "room") == "ws://127.0.0.1:3/hub", "renewed all along: no other hub may take the channel")
        #expect(hub.outlet.closes[member] == nil)
        #expect(hub.outlet.take(member).isEmpty)
    }

    @Test func aHubWhoseWallClockGoesBackWhileTheStoreDoesNotAnswerGivesUpItsChannelsWithinALeasesLife() {
        store.answering.withLock { $0 = false }
        let (hub, member) = jumping(by: -3600)
        #expect(hub.outlet.closes[member] == .goingAway, "it cannot tell how long it has gone unrenewed: never a second copy")
    }

    @Test func aHubWhoseWallClockJumpsAheadAnHourPutsEachMemberOutOnce() {
        let (hub, member) = jumping(by: 3600)
        // Tokens end by the wall clock: the member's ended with the jump, and it is told once.
        #expect(hub.outlet.take(member).map(\.type) == ["connectionStateChanged"])
        #expect(store.owner(of: "room") == nil, "the channel emptied and was given back")
        #expect(hub.outlet.closes[member] == nil, "closed only after the limit out of any channel")
    }

    @Test func withoutLeasesEveryChannelIsServedAsBefore() {
        let hub = HubFixture(time: time)
        let client = hub.connect()
        hub.join(client, uid: 1)
        #expect(hub.outlet.take(client).first?.type == "joined")
    }

    @Test func joinsForOneChannelShareOneClaimAndGoInOnceItIsAnsweredWhileTheHubServesOthers() {
        aLeases.holding = true
        let first = a.connect(), second = a.connect(), other = a.connect()
        a.join(first, uid: 1)
        a.join(second, uid: 2)
        #expect(a.outlet.take(first).isEmpty && a.outlet.take(second).isEmpty, "nobody is in before the channel is this hub's")
        #expect(aLeases.claims == 1, "one claim for the channel")
        a.join(first, uid: 1)
        #expect(a.outlet.take(first).first?.message == "already joining channel room; wait for its answer")
        a.say(other, #"{"type":"setRole","role":"audience"}"#)
        #expect(a.outlet.take(other).first?.type == "error", "the hub answers others meanwhile")
        aLeases.answerHeld()
        #expect(a.outlet.take(first).map(\.type) == ["joined", "userJoined"])
        #expect(a.outlet.take(second).first?.type == "joined")
        #expect(store.owner(of: "room") == "ws://127.0.0.1:1/hub")
    }

    @Test func aJoinerThatClosesOrLeavesWhileItsClaimWaitsIsNotLetInAndTheChannelIsGivenBack() {
        aLeases.holding = true
        let gone = a.connect(), leaving = a.connect()
        a.join(gone, uid: 1)
        a.join(leaving, uid: 2)
        a.close(gone, .lost)
        a.say(leaving, #"{"type":"leave"}"#)
        #expect(a.outlet.take(leaving).first?.state == "disconnected")
        aLeases.answerHeld()
        #expect(a.outlet.take(leaving).isEmpty, "no joined after the leave")
        aLeases.answerHeld()  // the release
        #expect(store.owner(of: "room") == nil, "nobody is in, so the lease is given back")
        a.join(leaving, uid: 2)
        aLeases.answerHeld()
        #expect(a.outlet.take(leaving).first?.type == "joined", "the connection may join again")
    }

    @Test func aJoinerThatLeavesAndJoinsAgainWhileTheClaimWaitsIsLetInOnce() {
        aLeases.holding = true
        let client = a.connect()
        a.join(client, uid: 1)
        a.say(client, #"{"type":"leave"}"#)
        a.join(client, uid: 1)
        aLeases.answerHeld()
        #expect(a.outlet.take(client).map(\.type) == ["connectionStateChanged", "joined"])
        #expect(aLeases.claims == 1)
    }

    @Test func aRenewalIsNeverSentWhileTheLastIsUnanswered() {
        let member = a.connect()
        a.join(member, uid: 1)
        #expect(a.outlet.take(member).first?.type == "joined")
        aLeases.holding = true
        a.advance(by: 1.25)
        #expect(aLeases.renewals == 1)
        a.advance(by: 1.25)
        #expect(aLeases.renewals == 1, "the first is still unanswered")
        aLeases.answerHeld()
        a.advance(by: 0.25)
        #expect(aLeases.renewals == 2, "the next, due meanwhile, goes once the first is answered")
        #expect(a.outlet.closes[member] == nil)
    }

    /// Issue 31, item 10: the store gone for longer than a lease's life (Redis down): the members are told why in words,
    /// and once it answers again their joins get in.
    @Test func aStoreGoneForALeasesLifeClosesTheMembersSayingSoAndTheyGetBackInOnceItAnswers() {
        let member = a.connect()
        a.join(member, uid: 1)
        #expect(a.outlet.take(member).first?.type == "joined")
        store.answering.withLock { $0 = false }
        a.advance(by: 2.5)
        #expect(a.outlet.closes[member] == nil, "a renewal or two unanswered puts nobody out")
        a.advance(by: 1)
        #expect(a.outlet.closes[member] == .goingAway)
        #expect(a.outlet.closeReasons[member] == "the hub cannot reach the store of channel owners; connect again")
        #expect(a.outlet.lines.contains { $0.hasPrefix("hub lost the lease of room: the store has not renewed it for 3.0 seconds (no answer)") }, "\(a.outlet.lines)")
        store.answering.withLock { $0 = true }
        let back = a.connect()
        a.join(back, uid: 1)
        #expect(a.outlet.take(back).first?.type == "joined")
    }
}
