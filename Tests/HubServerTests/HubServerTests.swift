import WebServer
import AccessToken
import HubServer
import HubProtocol
import JSON
import Sockets
import TestSupport
import Testing
import TokenServer
import WebSocket

@Suite struct HubServerTests {
    @Test func twoClientsJoinOneChannelAndSeeEachOther() {
        let hub = HubFixture()
        let alice = hub.connect(), bob = hub.connect()
        hub.join(alice, uid: 1)
        let joined = hub.outlet.take(alice)
        #expect(joined.map(\.type) == ["joined"])
        #expect(joined.first?.users == [])
        #expect(joined.first?.expiresAt == Int64(hub.time.now) + 600)
        hub.join(bob, uid: 2)
        #expect(hub.outlet.take(bob).first?.users == [HubPeer(uid: 1, account: nil)])
        #expect(hub.outlet.take(alice) == [.userJoined(HubPeer(uid: 2, account: nil))])
    }

    /// A browser cannot send WebSocket pings: its `ping` request shows it is there and is answered with nothing, in a
    /// channel or out of one, while the others hear nothing of it.
    @Test func aPingIsAnsweredWithNothingInOrOutOfAChannel() {
        let hub = HubFixture()
        let alice = hub.connect(), bob = hub.connect()
        hub.say(bob, #"{"type":"ping"}"#)
        #expect(hub.outlet.take(bob).isEmpty)
        hub.join(alice, uid: 1)
        hub.join(bob, uid: 2)
        _ = (hub.outlet.take(alice), hub.outlet.take(bob))
        hub.say(bob, #"{"type":"ping"}"#)
        #expect(hub.outlet.take(bob).isEmpty)
        #expect(hub.outlet.take(alice).isEmpty)
    }

    @Test func aTokenForAnotherChannelNeverGetsInAndLearnsNothing() {
        let hub = HubFixture()
        let member = hub.connect(), intruder = hub.connect(), later = hub.connect()
        hub.join(member, uid: 1)
        hub.join(intruder, uid: 9, token: hub.token(channel: "elsewhere", uid: 9))
        let refusal = hub.outlet.take(intruder)
        #expect(refusal.count == 1)
        #expect(refusal.first?.reason == "invalidToken")
        #expect(refusal.first?.reasonCode == 8)
        #expect(refusal.first?.errorCode == 110)
        hub.receive(.binary(videoFrame()), from: intruder)
        hub.join(later, uid: 2)
        _ = hub.outlet.take(member)
        hub.receive(.binary(videoFrame()), from: member)
        #expect(hub.outlet.take(intruder).isEmpty)
        #expect(hub.outlet.takeBinaries(intruder).isEmpty)
        #expect(hub.outlet.takeBinaries(member).isEmpty)
        #expect(hub.outlet.lines.contains { $0.contains("refused a join of room: invalidToken") })
    }

    @Test(arguments: [
        ("expired", "tokenExpired", 9, 109),
        ("wrong certificate", "invalidToken", 8, 110),
        ("another uid", "invalidToken", 8, 110),
        ("another App ID", "invalidAppId", 6, 101),
        ("bad channel name", "invalidChannelName", 7, 102),
    ])
    func refusalsCarryAgorasReasons(_ case: String, reason: String, reasonCode: Int, errorCode: Int) {
        let hub = HubFixture()
        let client = hub.connect()
        switch `case` {
        case "expired":
            let token = hub.token(uid: 3, lifetime: 10)
            hub.advance(by: 11)
            hub.join(client, uid: 3, token: token)
        case "wrong certificate":
            hub.join(client, uid: 3, token: hub.token(uid: 3, certificate: "0123456789abcdef0123456789abcdef"))
        case "another uid":
            hub.join(client, uid: 3, token: hub.token(uid: 4))
        case "another App ID":
            hub.say(client, #"{"type":"join","appId":"0123456789abcdef0123456789abcdef","channel":"room","uid":3,"token":"\#(hub.token(uid: 3))"}"#)
        default:
            hub.say(client, #"{"type":"join","channel":"a/b","uid":3,"token":"\#(hub.token(uid: 3))"}"#)
        }
        let answer = hub.outlet.take(client)
        #expect(answer.first?.type == "connectionStateChanged")
        #expect(answer.first?.reason == reason)
        #expect(answer.first?.reasonCode == reasonCode)
        #expect(answer.first?.errorCode == errorCode)
    }

    @Test func theHubWarnsThirtySecondsBeforeTheEndTakesARenewalAndPutsOutWhoDoesNotRenew() {
        let hub = HubFixture()
        let renews = hub.connect(), lapses = hub.connect()
        hub.join(renews, uid: 1, token: hub.token(uid: 1, lifetime: 100))
        hub.join(lapses, uid: 2, token: hub.token(uid: 2, lifetime: 100))
        _ = (hub.outlet.take(renews), hub.outlet.take(lapses))
        hub.advance(by: 69)
        #expect(hub.outlet.take(renews).isEmpty)
        hub.advance(by: 1)
        #expect(hub.outlet.take(renews).map(\.type) == ["tokenPrivilegeWillExpire"])
        hub.say(renews, #"{"type":"renew","token":"\#(hub.token(uid: 1, lifetime: 600))"}"#)
        let result = hub.outlet.take(renews)
        #expect(result.first?.result == "success")
        #expect(result.first?.expiresAt == Int64(hub.time.now) + 600)
        hub.advance(by: 30)
        let expired = hub.outlet.take(lapses)
        #expect(expired.map(\.type) == ["tokenPrivilegeWillExpire", "connectionStateChanged"])
        #expect(expired.last?.state == "failed")
        #expect(expired.last?.reason == "tokenExpired")
        #expect(hub.outlet.take(renews) == [.userOffline(uid: 2, reason: .quit)])
        #expect(hub.outlet.lines.contains { $0.contains("#2 token ended") })
    }

    @Test func aRefusedRenewalKeepsTheTokenItHas() {
        let hub = HubFixture()
        let client = hub.connect()
        hub.join(client, uid: 1, token: hub.token(uid: 1, lifetime: 100))
        _ = hub.outlet.take(client)
        hub.say(client, #"{"type":"renew","token":"\#(hub.token(channel: "other", uid: 1))"}"#)
        #expect(hub.outlet.take(client).first?.result == "invalidChannelName")
        hub.advance(by: 99)
        #expect(hub.outlet.take(client).map(\.type) == ["tokenPrivilegeWillExpire"])
        hub.advance(by: 1)
        #expect(hub.outlet.take(client).first?.reason == "tokenExpired")
    }

    @Test func aConnectionRoutedByChannelJoinsThatChannelOnly() {
        let hub = HubFixture()
        let client = hub.connect(query: ["channel": "room"])
        hub.join(client, channel: "other", uid: 1)
        #expect(hub.outlet.take(client).first?.message?.contains("opened for channel room") == true)
        hub.join(client, channel: "room", uid: 1)
        #expect(hub.outlet.take(client).first?.type == "joined")
    }

    @Test func aConnectionIsProvenWhileInAChannelOnly() {
        let hub = HubFixture()
        let refused = hub.connect(), leaves = hub.connect(), first = hub.connect(), second = hub.connect()
        hub.join(refused, uid: 1, token: hub.token(channel: "elsewhere", uid: 1))
        hub.join(leaves, uid: 2)
        hub.join(first, uid: 3)
        #expect(hub.outlet.proven == [leaves: true, first: true], "a refused join proves nothing")
        hub.say(leaves, #"{"type":"leave"}"#)
        hub.join(second, uid: 3)
        #expect(hub.outlet.proven == [leaves: false, first: false, second: true], "left, or pushed out by the same uid")
    }

    @Test func aConnectionOutOfAnyChannelForAMinuteIsClosed() {
        let hub = HubFixture()
        let refused = hub.connect(), leaves = hub.connect()
        hub.join(refused, uid: 1, token: hub.token(channel: "elsewhere", uid: 1))
        hub.join(leaves, uid: 2)
        hub.advance(by: 30)
        hub.say(leaves, #"{"type":"leave"}"#)
        hub.advance(by: 29)
        #expect(hub.outlet.closes.isEmpty)
        hub.advance(by: 1)
        #expect(hub.outlet.closes == [refused: .policyViolation])
        #expect(hub.outlet.lines.contains("hub #1 closed 1008: out of any channel for 60.0 seconds"))
        hub.advance(by: 30)
        #expect(hub.outlet.closes[leaves] == .policyViolation)
    }

    @Test func theSameUidJoiningAgainPushesTheFirstOutWithSameUidLogin() {
        let hub = HubFixture()
        let first = hub.connect(), watcher = hub.connect(), second = hub.connect()
        hub.join(first, uid: 5)
        hub.join(watcher, uid: 6)
        _ = (hub.outlet.take(first), hub.outlet.take(watcher))
        hub.join(second, uid: 5)
        let pushed = hub.outlet.take(first)
        #expect(pushed.first?.reason == "sameUidLogin")
        #expect(pushed.first?.reasonCode == 19)
        #expect(hub.outlet.take(watcher).map { "\($0.type) \($0.uid ?? 0)" } == ["userOffline 5", "userJoined 5"])
        #expect(hub.outlet.take(second).first?.type == "joined")
        hub.receive(.binary(videoFrame()), from: watcher)
        #expect(hub.outlet.takeBinaries(first).isEmpty)
        #expect(hub.outlet.takeBinaries(second).count == 1)
    }

    @Test func audienceIsUnseenAndRoleChangesShowAsJoinAndBecomeAudience() {
        let hub = HubFixture()
        let host = hub.connect(), viewer = hub.connect()
        hub.join(host, uid: 1)
        _ = hub.outlet.take(host)
        hub.join(viewer, uid: 2, role: "audience")
        _ = hub.outlet.take(viewer)
        #expect(hub.outlet.take(host).isEmpty)
        hub.say(viewer, #"{"type":"setRole","role":"broadcaster"}"#)
        #expect(hub.outlet.take(viewer) == [.clientRoleChanged(old: .audience, new: .broadcaster)])
        #expect(hub.outlet.take(host).map(\.type) == ["userJoined"])
        hub.say(viewer, #"{"type":"setRole","role":"audience"}"#)
        #expect(hub.outlet.take(host).first?.reason == "becomeAudience")
    }

    @Test func leavingIsQuitAndALostConnectionIsDropped() {
        let hub = HubFixture()
        let stays = hub.connect(), leaves = hub.connect(), lost = hub.connect()
        hub.join(stays, uid: 1)
        hub.join(leaves, uid: 2)
        hub.join(lost, uid: 3)
        _ = hub.outlet.take(stays)
        hub.say(leaves, #"{"type":"leave"}"#)
        #expect(hub.outlet.take(leaves).last?.reason == "leaveChannel")
        hub.close(lost, .lost)
        #expect(hub.outlet.take(stays).map { $0.reason } == ["quit", "dropped"])
    }

    @Test func videoGoesToTheOthersStampedWithTheSendersUidWithinTheRate() {
        let hub = HubFixture()
        let sender = hub.connect(), receiver = hub.connect()
        hub.join(sender, uid: 0x0102_0304)
        hub.join(receiver, uid: 2)
        var frame = videoFrame()
        frame[1] = 0xEE  // a forged uid
        for _ in 0..<15 { hub.receive(.binary(frame), from: sender) }
        let forwarded = hub.outlet.takeBinaries(receiver)
        #expect(forwarded.count == HubVideoFrame.maxPerSecond)
        #expect(forwarded.first.map { Array($0[1...4]) } == [1, 2, 3, 4])
        #expect(hub.outlet.takeBinaries(sender).isEmpty)
        hub.advance(by: 0.5)
        for _ in 0..<15 { hub.receive(.binary(frame), from: sender) }
        #expect(hub.outlet.takeBinaries(receiver).count == HubVideoFrame.maxPerSecond / 2)
    }

    @Test func anOversizedOrMalformedVideoFrameClosesTheSender() {
        let hub = HubFixture()
        let big = hub.connect(), odd = hub.connect()
        hub.join(big, uid: 1)
        hub.receive(.binary(videoFrame(runs: [UInt8](repeating: 1, count: HubVideoFrame.maxBytes))), from: big)
        #expect(hub.outlet.closes[big] == .messageTooBig)
        #expect(hub.outlet.lines.contains { $0.contains("#1 closed 1009") })
        hub.receive(.binary([2, 0, 0]), from: odd)
        #expect(hub.outlet.closes[odd] == .policyViolation)
    }

    @Test func anAccountKeepsItsUidWhileInAChannelAndUidZeroIsAssigned() {
        let hub = HubFixture()
        let first = hub.connect(), again = hub.connect(), anonymous = hub.connect()
        hub.say(first, #"{"type":"join","channel":"room","account":"alice","token":"\#(hub.token(user: .account("alice")))"}"#)
        let uid = hub.outlet.take(first).first?.uid
        #expect(uid == 1_000_000_001)
        // In another channel at the same time, the account is the same uid.
        hub.say(again, #"{"type":"join","channel":"other","account":"alice","token":"\#(hub.token(channel: "other", user: .account("alice")))"}"#)
        #expect(hub.outlet.take(again).first?.uid == uid)
        // The uid the hub would assign next is taken in the channel: it assigns the one after.
        let taken = hub.connect()
        hub.join(taken, uid: UInt32(uid ?? 0) + 1)
        hub.join(anonymous, uid: 0)
        let assigned = hub.outlet.take(anonymous).first?.uid
        #expect(assigned == (uid ?? 0) + 2)
    }

    @Test(arguments: [
        ("not json", "not JSON"),
        (#"[1]"#, "a JSON object, not an array"),
        (#"{"type":"dance"}"#, "no request of type \"dance\""),
        (#"{"type":"join","channel":"room","token":"x"}"#, "join needs a uid"),
        (#"{"type":"join","channel":"room","uid":-1,"token":"x"}"#, "uid must be a whole number 0...4294967295, not -1"),
        (#"{"type":"join","channel":"room","uid":"7","token":"x"}"#, "not a string"),
        (#"{"type":"join","channel":"room","uid":1,"account":"a","token":"x"}"#, "not both"),
        (#"{"type":"renew"}"#, "token is missing"),
        (#"{"type":"setRole","role":"host"}"#, "role must be broadcaster or audience"),
        (#"{"type":"leave"}"#, "not in a channel"),
    ])
    func aMessageTheHubCannotTakeIsAnsweredWithWhatIsWrong(_ json: String, says: String) {
        let hub = HubFixture()
        let client = hub.connect()
        hub.say(client, json)
        let answer = hub.outlet.take(client)
        #expect(answer.first?.type == "error")
        #expect(answer.first?.message?.contains(says) == true, "\(answer)")
        #expect(hub.outlet.closes.isEmpty)
    }

    /// What the adapter does with the core's outputs, on the wire: each notice written once, as JSON, for all it goes to.
    @Test func theHubWritesEachNoticeOnceForEveryoneItGoesTo() {
        let time = HandTime()
        let hub = HubServer(time.hubConfiguration())
        let wire = WireOutlet()
        hub.start(outlet: wire, wake: {})
        let fixture = HubFixture(time: time)
        for uid in UInt32(1)...3 {
            hub.opened(WebSocketClientID(UInt64(uid)), address: "127.0.0.1", query: [:])
            hub.received(.text(#"{"type":"join","channel":"room","uid":\#(uid),"token":"\#(fixture.token(uid: uid))"}"#),
                         from: WebSocketClientID(UInt64(uid)))
        }
        let joined = wire.texts.filter { $0.text.hasPrefix(#"{"type":"userJoined""#) }
        #expect(joined.map(\.text) == [#"{"type":"userJoined","uid":2}"#, #"{"type":"userJoined","uid":3}"#])
        #expect(joined.map(\.clients) == [[WebSocketClientID(1)], [WebSocketClientID(1), WebSocketClientID(2)]].map(Set.init))
        #expect(wire.proven == [WebSocketClientID(1), WebSocketClientID(2), WebSocketClientID(3)])
    }
}

/// A host's outlet that keeps what the hub wrote, as the text it wrote.
final class WireOutlet: WebSocketOutlet {
    private(set) var texts: [(text: String, clients: Set<WebSocketClientID>)] = []
    private(set) var proven: [WebSocketClientID] = []
    var loop: EventLoop? { nil }
    func send(text: String, to clients: some Sequence<WebSocketClientID>) { texts.append((text, Set(clients))) }
    func send(binary: [UInt8], to clients: some Sequence<WebSocketClientID>) {}
    func close(_ client: WebSocketClientID, code: WebSocketCloseCode, reason: String) {}
    func log(_ line: String) {}
    func prove(_ client: WebSocketClientID, _ proven: Bool) { if proven { self.proven.append(client) } }
}
