import Foundation
import TestSupport
import Testing
@testable import TokenServer
@testable import WebServer

/// Channel names and accounts at Agora's limits, of every character it allows, through each token route.
@Suite struct NameLimitTests {
    static let characters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 !#$%&()+-:;<=.>?@[]^_{}|~,"
    static let channels = [String(characters.prefix(63)), String((characters + characters).dropFirst(63).prefix(63))]
    static let account = String(String(repeating: characters, count: 3).prefix(255))

    static func json(_ text: String) -> String { String(decoding: try! JSONEncoder().encode(text), as: UTF8.self) }
    static func escaped(_ text: String) -> String {
        text.utf8.map { byte in
            let c = Character(Unicode.Scalar(byte))
            return c.isLetter || c.isNumber ? String(c) : String(format: "%%%02X", byte)
        }.joined()
    }

    @Test func namesAtTheirLimitsGetTokensForExactlyThoseNames() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        for channel in Self.channels {
            let fetched = try verifiedToken(client.request("POST", "/fetch_rtc_token", body: #"{"uid": 7, "channelName": \#(Self.json(channel))}"#))
            #expect(fetched.rtc?.channel == channel)
            let got = try verifiedToken(client.request("POST", "/getToken",
                body: #"{"tokenType": "rtc", "channel": \#(Self.json(channel)), "uid": \#(Self.json(Self.account))}"#))
            #expect(got.rtc?.channel == channel && got.rtc?.uid == Self.account)
            let path = try verifiedToken(client.request("GET", "/rtc/\(Self.escaped(channel))/publisher/userAccount/\(Self.escaped(Self.account))/"),
                                         field: "rtcToken")
            #expect(path.rtc?.channel == channel && path.rtc?.uid == Self.account)
        }
        let long = client.request("POST", "/fetch_rtc_token", body: #"{"uid": 7, "channelName": "\#(String(repeating: "a", count: 64))"}"#)
        #expect(long?.status == 400 && long?.json?["error"] as? String == "invalid channel name: it is 64 bytes; Agora allows 63 at most")
        let longAccount = client.request("GET", "/rtc/a/publisher/userAccount/\(String(repeating: "a", count: 256))/")
        #expect(longAccount?.json?["error"] as? String == "userAccount: invalid user account: it is 256 bytes; Agora allows 255 at most")
    }
}
