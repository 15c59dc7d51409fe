import AccessToken
import Foundation
import HubServer
import HubProtocol
import JSON
import TestSupport
import Testing
import TokenServer

/// Names at Agora's limits, of every character it allows, and many channels on one hub.
@Suite struct HubLimitsTests {
    /// Agora's 89 characters for names.
    static let characters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 !#$%&()+-:;<=.>?@[]^_{}|~,"
    /// Two channel names of 63 bytes, the most, holding every character between them.
    static let channels = [String(characters.prefix(63)), String((characters + characters).dropFirst(63).prefix(63))]
    /// An account of 255 bytes, the most, of every character.
    static let account = String(String(repeating: characters, count: 3).prefix(255))

    static func json(_ text: String) -> String { String(decoding: try! JSONEncoder().encode(text), as: UTF8.self) }

    @Test func channelsAndAccountsAtTheirLimitsJoinAndAreSeenAsTheyAreAndOneByteMoreIsRefused() {
        let hub = HubFixture()
        for channel in Self.channels {
            let first = hub.connect(), second = hub.connect()
            let token = hub.token(channel: channel, user: .account(Self.account))
            hub.say(first, #"{"type":"join","channel":\#(Self.json(channel)),"account":\#(Self.json(Self.account)),"token":"\#(token)"}"#)
            let joined = hub.outlet.take(first).first
            #expect(joined?.type == "joined", "\(String(describing: joined))")
            let uid = joined?.uid ?? 0
            hub.say(second, #"{"type":"join","channel":\#(Self.json(channel)),"uid":5,"token":"\#(hub.token(channel: channel, uid: 5))"}"#)
            let seen = hub.outlet.take(second).first
            #expect(seen?.users == [HubPeer(uid: UInt32(uid), account: Self.account)], "\(String(describing: seen))")
        }
        let long = hub.connect(), longAccount = hub.connect()
        hub.say(long, #"{"type":"join","channel":"\#(String(repeating: "a", count: 64))","uid":1,"token":"x"}"#)
        #expect(hub.outlet.take(long).first?.reason == "invalidChannelName")
        hub.say(longAccount, #"{"type":"join","channel":"room","account":"\#(String(repeating: "a", count: 256))","token":"x"}"#)
        #expect(hub.outlet.take(longAccount).first?.error == "invalidUserAccount")
    }

    /// 10,000 channels of one member each: all join, time passes over them, all leave, and a channel left is new again.
    @Test func tenThousandChannelsOnOneHub() {
        let hub = HubFixture()
        let clients = (0..<10_000).map { index in
            let client = hub.connect()
            hub.join(client, channel: "c\(index)", uid: 1)
            return client
        }
        #expect(clients.filter { hub.outlet.take($0).first?.type == "joined" }.count == 10_000)
        hub.advance(by: 5)
        for client in clients { hub.say(client, #"{"type":"leave"}"#) }
        let again = hub.connect()
        hub.join(again, channel: "c0", uid: 2)
        #expect(hub.outlet.take(again).first?.users == [])
    }
}
