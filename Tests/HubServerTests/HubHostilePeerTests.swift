import AccessToken
import Foundation
@testable import HubServer
import HubProtocol
import JSON
import TestSupport
import Testing
import TokenServer
import WebSocket

/// What one member does to break the hub for the others, and what the hub does about it.
@Suite struct HubHostilePeerTests {
    @Test(arguments: [
        // The issue's frame: a 32×18 header and one run of 10 cells.
        ([1, 0, 0, 0, 0, 0x20, 0x12, 0x0A, 0xFF, 0, 0], "runs hold 10 cells, not its 32×18"),
        ([1, 0, 0, 0, 0, 2, 1, 3, 1, 2, 3], "more than its 2×1"),
        ([1, 0, 0, 0, 0, 2, 1, 0, 1, 2, 3, 2, 1, 2, 3], "run of 0"),
        ([1, 0, 0, 0, 0, 2, 1, 2, 1, 2], "4 bytes each"),
    ] as [([UInt8], String)])
    func aVideoFrameTheFormatDoesNotAllowClosesItsSenderAndReachesNobody(frame: [UInt8], words: String) {
        let hub = HubFixture()
        let sender = hub.connect(), receiver = hub.connect()
        hub.join(sender, uid: 1)
        hub.join(receiver, uid: 2)
        hub.receive(.binary(frame), from: sender)
        #expect(hub.outlet.takeBinaries(receiver).isEmpty)
        #expect(hub.outlet.closes == [sender: .policyViolation])
        #expect(hub.outlet.lines.contains { $0.hasPrefix("hub #1 closed 1008: a video frame's") && $0.contains(words) }, "\(hub.outlet.lines)")
    }

    @Test func leavingAndJoiningAgainStartsNoNewVideoAllowance() {
        let hub = HubFixture()
        let sender = hub.connect(), receiver = hub.connect()
        hub.join(receiver, uid: 2)
        hub.join(sender, uid: 1)
        for _ in 0..<3 {
            for _ in 0..<15 { hub.receive(.binary(videoFrame()), from: sender) }
            hub.say(sender, #"{"type":"leave"}"#)
            hub.join(sender, uid: 1)
        }
        #expect(hub.outlet.takeBinaries(receiver).count == HubRate.video.burst)
        hub.advance(by: 1)
        for _ in 0..<15 { hub.receive(.binary(videoFrame()), from: sender) }
        #expect(hub.outlet.takeBinaries(receiver).count == HubVideoFrame.maxPerSecond)
    }

    @Test func joinsBeyondTheirRateAreRefusedAndTheOthersHearOfNoMore() {
        let hub = HubFixture()
        let cycler = hub.connect(), watcher = hub.connect()
        hub.join(watcher, uid: 2)
        hub.join(cycler, uid: 1)
        for _ in 0..<8 {
            hub.say(cycler, #"{"type":"leave"}"#)
            hub.join(cycler, uid: 1)
        }
        let heard = hub.outlet.take(watcher).map(\.type)
        #expect(heard.filter { $0 == "userJoined" }.count == HubRate.presence.burst)
        #expect(heard.filter { $0 == "userOffline" }.count == HubRate.presence.burst)
        let refusals = hub.outlet.take(cycler).compactMap { $0.message }.filter { $0.hasPrefix("too many joins and role changes") }
        #expect(refusals.count == 8 + 1 - HubRate.presence.burst)
        #expect(refusals.first?.contains("\(HubRate.presence.burst) at once, then one every 2.0 seconds") == true, "\(refusals)")
        hub.advance(by: 2)
        hub.join(cycler, uid: 1)
        #expect(hub.outlet.take(cycler).map(\.type) == ["joined"])
    }

    @Test func roleChangesBeyondTheirRateAreRefusedForThatConnectionOnly() {
        let hub = HubFixture()
        let flooder = hub.connect(), other = hub.connect(), watcher = hub.connect()
        hub.join(flooder, uid: 1)
        hub.join(other, uid: 2)
        hub.join(watcher, uid: 3)
        _ = (hub.outlet.take(flooder), hub.outlet.take(other), hub.outlet.take(watcher))
        for index in 0..<12 { hub.say(flooder, #"{"type":"setRole","role":"\#(index % 2 == 0 ? "audience" : "broadcaster")"}"#) }
        #expect(hub.outlet.take(flooder).map(\.type).filter { $0 == "clientRoleChanged" }.count == HubRate.presence.burst - 1)
        #expect(hub.outlet.take(watcher).count == HubRate.presence.burst - 1)
        _ = hub.outlet.take(other)
        hub.say(other, #"{"type":"setRole","role":"audience"}"#)
        #expect(hub.outlet.take(other).map(\.type) == ["clientRoleChanged"])
        #expect(hub.outlet.take(watcher).first?.reason == "becomeAudience")
    }

    @Test func messagesBeyondTheirRateAreAnsweredWithErrorAndNotDone() {
        let hub = HubFixture()
        let flooder = hub.connect()
        hub.join(flooder, uid: 1)
        _ = hub.outlet.take(flooder)
        let renewal = #"{"type":"renew","token":"\#(hub.token(uid: 1))"}"#
        for _ in 0..<30 { hub.say(flooder, renewal) }
        let answers = hub.outlet.take(flooder)
        #expect(answers.filter { $0.type == "renewTokenResult" }.count == HubRate.messages.burst - 1)
        #expect(answers.filter { $0.message?.hasPrefix("too many messages") == true }.count == 30 + 1 - HubRate.messages.burst)
        hub.advance(by: 0.5)
        for _ in 0..<30 { hub.say(flooder, renewal) }
        #expect(hub.outlet.take(flooder).filter { $0.type == "renewTokenResult" }.count == 5)
    }

    @Test func anIntegerUidThatAnAccountHoldsInTheChannelIsRefusedAndTheAccountStays() throws {
        let hub = HubFixture()
        let alice = hub.connect(), bob = hub.connect()
        hub.say(alice, #"{"type":"join","channel":"room","account":"alice","token":"\#(hub.token(user: .account("alice")))"}"#)
        let uid = try #require(hub.outlet.take(alice).first?.uid)
        hub.join(bob, uid: UInt32(uid))
        let refusal = hub.outlet.take(bob)
        #expect(refusal.first?.state == "failed")
        #expect(refusal.first?.reason == "rejectedByServer")
        #expect(refusal.first?.errorCode == 17)
        #expect(hub.outlet.take(alice).isEmpty)
        #expect(hub.outlet.lines.contains("hub #2 refused a join of room: uid \(uid) is another user's in the channel"))
    }

    @Test func anAccountIsAssignedAroundTheIntegerUidsInTheChannel() {
        let hub = HubFixture()
        let integer = hub.connect(), account = hub.connect()
        hub.join(integer, uid: 1_000_000_001)
        _ = hub.outlet.take(integer)
        hub.say(account, #"{"type":"join","channel":"room","account":"bob","token":"\#(hub.token(user: .account("bob")))"}"#)
        #expect(hub.outlet.take(account).first?.uid == 1_000_000_002)
        #expect(hub.outlet.take(integer).map(\.type) == ["userJoined"])
    }

    @Test func theSameAccountJoiningAgainPushesOutOnlyItself() {
        let hub = HubFixture()
        let first = hub.connect(), second = hub.connect()
        let join = #"{"type":"join","channel":"room","account":"alice","token":"\#(hub.token(user: .account("alice")))"}"#
        hub.say(first, join)
        let uid = hub.outlet.take(first).first?.uid
        hub.say(second, join)
        #expect(hub.outlet.take(first).first?.reason == "sameUidLogin")
        #expect(hub.outlet.take(second).first?.uid == uid)
        #expect(hub.core.accounts["alice"]?.members == 1)
    }

    @Test func afterTheCountWrapsAnAssignedUidIsNoAccountsHeldOne() {
        let hub = HubFixture()
        let alice = hub.connect(), anonymous = hub.connect(), aliceAgain = hub.connect()
        hub.say(alice, #"{"type":"join","channel":"room","account":"alice","token":"\#(hub.token(user: .account("alice")))"}"#)
        #expect(hub.outlet.take(alice).first?.uid == 1_000_000_001)
        hub.core.lastAssignedUid = .max
        hub.join(anonymous, channel: "other", uid: 0)
        #expect(hub.outlet.take(anonymous).first?.uid == 1_000_000_002)
        hub.say(aliceAgain, #"{"type":"join","channel":"other","account":"alice","token":"\#(hub.token(channel: "other", user: .account("alice")))"}"#)
        #expect(hub.outlet.take(aliceAgain).first?.uid == 1_000_000_001)
        #expect(hub.outlet.take(anonymous).map(\.type) == ["userJoined"])
    }

    @Test func accountsInNoChannelAreForgotten() {
        let hub = HubFixture()
        let cycler = hub.connect()
        for index in 0..<50 {
            let account = "user\(index)"
            hub.say(cycler, #"{"type":"join","channel":"room","account":"\#(account)","token":"\#(hub.token(user: .account(account)))"}"#)
            #expect(hub.outlet.take(cycler).first?.type == "joined")
            #expect(hub.core.accounts.count == 1)
            hub.say(cycler, #"{"type":"leave"}"#)
            #expect(hub.outlet.take(cycler).first?.reason == "leaveChannel")
            hub.advance(by: 2)
        }
        #expect(hub.core.accounts.isEmpty)
        // One account in two channels is kept until it has left both.
        let first = hub.connect(), second = hub.connect()
        hub.say(first, #"{"type":"join","channel":"room","account":"alice","token":"\#(hub.token(user: .account("alice")))"}"#)
        hub.say(second, #"{"type":"join","channel":"other","account":"alice","token":"\#(hub.token(channel: "other", user: .account("alice")))"}"#)
        hub.say(first, #"{"type":"leave"}"#)
        #expect(hub.core.accounts.map(\.key) == ["alice"])
        hub.close(second, .lost)
        #expect(hub.core.accounts.isEmpty)
    }

    @Test func theDocumentedRatesAreTheHubsOwn() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: docs.appending(path: "Docs/hub-protocol.md"), encoding: .utf8)
        for rate in [HubRate.messages, HubRate.presence] {
            let every = rate.interval < .seconds(1) ? "\(rate.interval.components.attoseconds / 1_000_000_000_000_000) ms"
                                                     : "\(rate.interval.components.seconds) s"
            #expect(text.contains("\(rate.burst) at once, then one every \(every)"), "\(rate)")
        }
        #expect(text.contains("\(HubVideoFrame.maxPerSecond) frames/s on average, bursts of \(HubRate.video.burst)"))
    }
}
