import AccessToken
import Foundation
import TestSupport
import Testing

/// `tokencall serve` runs the channel hub at /hub on its port.
@Suite struct ServeHubTests {
    func token(channel: String, uid: UInt32) throws -> String {
        try AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, channel: channel,
                                  user: .uid(uid), role: .publisher, tokenExpire: 600, privilegeExpire: 600)
    }

    @Test func twoClientsOfTheServedHubSeeEachOtherAndAnotherChannelsTokenIsRefused() throws {
        let (process, stderr, base, line) = try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate)
        defer { process.terminate(); process.waitUntilExit() }
        #expect(line.contains("channel hub at /hub"))
        let port = UInt16(try #require(base.port))
        let alice = try WebSocketTestClient.open(port: port)
        alice.send(text: #"{"type":"join","channel":"standup","uid":1,"token":"\#(try token(channel: "standup", uid: 1))"}"#)
        #expect(try alice.nextText()?.contains(#""type":"joined""#) == true)
        let intruder = try WebSocketTestClient.open(port: port)
        intruder.send(text: #"{"type":"join","channel":"standup","uid":7,"token":"\#(try token(channel: "other", uid: 7))"}"#)
        #expect(try intruder.nextText()?.contains(#""reason":"invalidToken""#) == true)
        let bob = try WebSocketTestClient.open(port: port)
        bob.send(text: #"{"type":"join","channel":"standup","uid":2,"token":"\#(try token(channel: "standup", uid: 2))"}"#)
        #expect(try bob.nextText()?.contains(#""users":[{"uid":1}]"#) == true)
        #expect(try alice.nextText() == #"{"type":"userJoined","uid":2}"#)
        process.terminate()
        process.waitUntilExit()
        #expect(try alice.closeFrame()?.code == .goingAway)
        let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains("GET /hub 101 "))
        #expect(log.contains("hub #2 refused a join of standup: invalidToken"))
    }
}
