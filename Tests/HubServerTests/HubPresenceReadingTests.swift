import AgoraVocabulary
@testable import HubProtocol
import SeededRandom
import Testing

/// `HubNotice.presence(inJSON:)`, the short way through the notices a join storm is made of, beside the JSON reader it
/// leaves the rest to: whatever it takes must read as the same notice there.
@Suite struct HubPresenceReadingTests {
    static let written: [HubNotice] = [
        .userJoined(HubPeer(uid: 0, account: nil)),
        .userJoined(HubPeer(uid: 1_000_000_001, account: nil)),
        .userJoined(HubPeer(uid: 4_294_967_295, account: nil)),
        .userJoined(HubPeer(uid: 7, account: "bob")),
        .userJoined(HubPeer(uid: 7, account: "")),
        .userJoined(HubPeer(uid: 8, account: " ~!#$%&'()*+,-./:;<=>?@[]^_`{|}")),
        .userOffline(uid: 9, reason: .quit),
        .userOffline(uid: 4_294_967_295, reason: .dropped),
        .userOffline(uid: 0, reason: .becomeAudience),
        .joined(channel: "c", uid: 1, role: .broadcaster, expiresAt: 1, users: []),
        .joined(channel: "load-7", uid: 4_294_967_295, role: .audience, expiresAt: 1_800_000_600,
                users: [HubPeer(uid: 2, account: "bob"), HubPeer(uid: 3, account: nil), HubPeer(uid: 0, account: "")]),
    ]

    @Test(arguments: written)
    func whatTheHubWritesIsReadTheShortWay(_ notice: HubNotice) throws {
        #expect(HubNotice.presence(inJSON: notice.json) == notice)
        #expect(try HubNotice(readingJSON: notice.json) == notice)
    }

    @Test(arguments: [
        HubNotice.userJoined(HubPeer(uid: 2, account: "b\"ob")),
        .userJoined(HubPeer(uid: 2, account: "back\\slash")),
        .userJoined(HubPeer(uid: 2, account: "é")),
        .userJoined(HubPeer(uid: 2, account: "\u{1B}[2J")),
        .joined(channel: "a\"b", uid: 1, role: .broadcaster, expiresAt: 1, users: []),
        .joined(channel: "c", uid: 1, role: .broadcaster, expiresAt: 1, users: [HubPeer(uid: 2, account: "é")]),
        .tokenPrivilegeWillExpire(expiresAt: 1_800_000_570),
        .userOffline(uid: 9, reason: .dropped, silence: .seconds(20)),
    ])
    func anythingElseIsLeftToTheJSONReader(_ notice: HubNotice) throws {
        #expect(HubNotice.presence(inJSON: notice.json) == nil)
        #expect(try HubNotice(json: notice.json) == notice)
    }

    @Test(arguments: [
        #"{"type":"userJoined","uid":01}"#, #"{"type":"userJoined","uid":-1}"#, #"{"type":"userJoined","uid":4294967296}"#,
        #"{"type":"userJoined","uid":1.0}"#, #"{"type":"userJoined","uid":1e3}"#, #"{"type":"userJoined","uid":1} "#,
        #"{"type":"userJoined","uid":1}}"#, #"{"type":"userJoined","uid":12345678901}"#, #"{"type":"userJoined","uid":}"#,
        #"{"type":"userJoined", "uid":1}"#, #"{"reason":"quit","reasonCode":1,"type":"userOffline","uid":1}"#,
        #"{"reason":"kicked","reasonCode":7,"type":"userOffline","uid":1}"#, #"{"account":"a,"type":"userJoined","uid":1}"#,
        #"{"channel":"c","expiresAt":1,"role":"host","type":"joined","uid":1,"users":[]}"#,
        #"{"channel":"c","expiresAt":1,"role":"audience","type":"joined","uid":1,"users":[{"uid":2},]}"#,
        #"{"channel":"c","expiresAt":1,"role":"audience","type":"joined","uid":1,"users":[{"uid":2}{"uid":3}]}"#,
        #"{"channel":"c","expiresAt":1,"role":"audience","type":"joined","uid":1,"users":[,]}"#,
        #"{"channel":"c","expiresAt":1,"role":"audience","type":"joined","uid":1,"users":[]"#,
    ])
    func aNearMissIsLeftToTheJSONReader(_ text: String) {
        #expect(HubNotice.presence(inJSON: text) == nil)
    }

    /// Seeded mutations of the hub's own notices (a byte changed, dropped, added, or the text cut short): each one the
    /// short way takes reads as the same notice through the JSON reader.
    @Test func everyMutationTheShortWayTakesTheJSONReaderReadsAlike() throws {
        var random = SplitMix64(seed: 21, stream: "presence")
        let alphabet = Array(#"0123456789"\,:{}-.e aA~"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9]
        var taken = 0, tried = 0
        for _ in 0..<20_000 {
            var bytes = Array(Self.written[random.below(Self.written.count)].json.utf8)
            for _ in 0...random.below(2) {
                let at = random.below(bytes.count)
                switch random.below(4) {
                case 0: bytes[at] = alphabet[random.below(alphabet.count)]
                case 1: bytes.remove(at: at)
                case 2: bytes.insert(alphabet[random.below(alphabet.count)], at: at)
                default: bytes.removeLast(random.below(bytes.count - at))
                }
                if bytes.isEmpty { break }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            tried += 1
            guard let short = HubNotice.presence(inJSON: text) else { continue }
            taken += 1
            #expect(try HubNotice(readingJSON: text) == short, "\(text)")
        }
        #expect(taken > 1000, "only \(taken) of \(tried) mutations were taken the short way: the test tells little")
    }
}
