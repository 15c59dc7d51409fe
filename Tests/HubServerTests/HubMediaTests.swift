import AgoraVocabulary
import HubProtocol
import Testing
import WebServer

/// Audio and video states over the hub (`Docs/hub-protocol.md`, "Audio and video states"): carried and told, never
/// audio itself, and only to clients that read them.
@Suite struct HubMediaTests {
    /// A join that tells states: the states of the broadcasters present follow its `joined`, and its own follow its
    /// `userJoined` for the others who read them.
    func joinTelling(_ hub: HubFixture, _ client: WebSocketClientID, uid: UInt32, audio: String = "on", video: String = "on",
                     role: String = "broadcaster") {
        hub.say(client, #"{"type":"join","channel":"room","uid":\#(uid),"token":"\#(hub.token(uid: uid))","role":"\#(role)","audio":"\#(audio)","video":"\#(video)"}"#)
    }

    @Test func aMemberMutingIsToldToThoseWhoReadStatesAndToNoOlderClient() {
        let hub = HubFixture()
        let alice = hub.connect(), bob = hub.connect(), old = hub.connect()
        joinTelling(hub, alice, uid: 1)
        joinTelling(hub, bob, uid: 2, audio: "muted")
        hub.join(old, uid: 3)
        #expect(hub.outlet.take(bob) == [.joined(channel: "room", uid: 2, role: .broadcaster, expiresAt: Int64(hub.time.now) + 600,
                                                 users: [HubPeer(uid: 1, account: nil)]),
                                         .userMedia(uid: 1, HubMedia(audio: .on, video: .on)), .userJoined(HubPeer(uid: 3, account: nil))])
        #expect(hub.outlet.take(alice).dropFirst() == [.userJoined(HubPeer(uid: 2, account: nil)), .userMedia(uid: 2, HubMedia(audio: .muted, video: .on)),
                                           .userJoined(HubPeer(uid: 3, account: nil))])
        #expect(hub.outlet.take(old).map(\.type) == ["joined"])

        hub.say(alice, #"{"type":"media","audio":"muted","video":"off"}"#)
        #expect(hub.outlet.take(alice) == [.userMedia(uid: 1, HubMedia(audio: .muted, video: .off))], "the answer: the hub took them")
        #expect(hub.outlet.take(bob) == [.userMedia(uid: 1, HubMedia(audio: .muted, video: .off))])
        #expect(hub.outlet.take(old).isEmpty)
        hub.say(alice, #"{"type":"media","audio":"muted","video":"off"}"#)
        #expect(hub.outlet.take(alice).count == 1)
        #expect(hub.outlet.take(bob).isEmpty, "the same states again are no news")
    }

    @Test func anAudienceMembersStatesAreToldWhenItBecomesABroadcaster() {
        let hub = HubFixture()
        let alice = hub.connect(), carol = hub.connect()
        joinTelling(hub, alice, uid: 1)
        joinTelling(hub, carol, uid: 5, role: "audience")
        _ = (hub.outlet.take(alice), hub.outlet.take(carol))
        hub.say(carol, #"{"type":"media","audio":"muted","video":"on"}"#)
        #expect(hub.outlet.take(alice).isEmpty)
        hub.say(carol, #"{"type":"setRole","role":"broadcaster"}"#)
        #expect(hub.outlet.take(alice) == [.userJoined(HubPeer(uid: 5, account: nil)), .userMedia(uid: 5, HubMedia(audio: .muted, video: .on))])
    }

    @Test(arguments: [
        (#"{"type":"media","audio":"loud","video":"on"}"#, #"audio must be one of off, on, muted, not "loud""#),
        (#"{"type":"media","audio":"on"}"#, "audio and video go together"),
        (#"{"type":"media"}"#, "media needs audio and video"),
        (#"{"type":"media","audio":1,"video":"on"}"#, "audio must be a string, not a number"),
        (#"{"type":"media","audio":"on\u0000","video":"on"}"#, "audio must be one of off, on, muted"),
    ])
    func hostileStatesAreAnsweredWithAnErrorAndToldToNobody(_ text: String, _ expected: String) {
        let hub = HubFixture()
        let alice = hub.connect(), bob = hub.connect()
        joinTelling(hub, alice, uid: 1)
        joinTelling(hub, bob, uid: 2)
        _ = (hub.outlet.take(alice), hub.outlet.take(bob))
        hub.say(alice, text)
        let answer = hub.outlet.take(alice)
        #expect(answer.count == 1)
        #expect(answer.first?.message?.utf8.starts(with: expected.utf8) == true, "\(answer)")
        #expect(hub.outlet.take(bob).isEmpty)
    }

    @Test func statesOutsideAChannelAreRefusedAndChangesOverTheRateAreNotDone() {
        let hub = HubFixture()
        let alice = hub.connect(), bob = hub.connect(), outside = hub.connect()
        hub.say(outside, #"{"type":"media","audio":"on","video":"on"}"#)
        #expect(hub.outlet.take(outside).first?.message == "not in a channel; send audio and video with join")
        joinTelling(hub, alice, uid: 1)
        joinTelling(hub, bob, uid: 2)
        _ = (hub.outlet.take(alice), hub.outlet.take(bob))
        for index in 0..<HubRate.media.burst {
            hub.say(alice, #"{"type":"media","audio":"\#(index % 2 == 0 ? "muted" : "on")","video":"on"}"#)
        }
        #expect(hub.outlet.take(bob).count == HubRate.media.burst)
        hub.say(alice, #"{"type":"media","audio":"off","video":"on"}"#)
        #expect(hub.outlet.take(bob).isEmpty)
        let answers = hub.outlet.take(alice)
        #expect(answers.count == HubRate.media.burst + 1)
        #expect(answers.last?.message?.utf8.starts(with: "too many audio and video changes".utf8) == true)
        hub.advance(by: HubRate.media.interval / .seconds(1))
        hub.say(alice, #"{"type":"media","audio":"off","video":"on"}"#)
        #expect(hub.outlet.take(bob) == [.userMedia(uid: 1, HubMedia(audio: .off, video: .on))])
    }
}
