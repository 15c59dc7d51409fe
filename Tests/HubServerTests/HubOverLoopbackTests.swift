import AccessToken
import HubServer
import HubProtocol
import JSON
import Synchronization
import TestSupport
import Testing
import TokenServer
import WebSocket

/// The hub behind a real server on 127.0.0.1, reached by WebSocket clients; its time moves by hand.
final class LoopbackHub {
    let fixture: HubFixture
    /// Wakes the hub to act on the time moved.
    let timeChanged: @Sendable () -> Void
    let server: TokenServer
    let log = ServerLog()

    /// A hub on `time`, with `leases` when given and `outsideLimit` in place of the hub's own.
    init(time: HandTime = HandTime(), leases: (any ChannelLeases & Sendable)? = nil, outsideLimit: Duration? = nil) throws {
        fixture = HubFixture(time: time)
        var hubConfig = time.hubConfiguration()
        if let leases { hubConfig.leases = { leases } }
        if let outsideLimit { hubConfig.outsideLimit = outsideLimit }
        timeChanged = hubConfig.nudge.timeChanged
        let log = self.log
        var config = TokenServerConfig(port: 0, appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                       log: { line in log.lines.withLock { $0.append(line) } }, unixTime: { UInt32(time.now) })
        config.webSocket = HubServer.endpoint(hubConfig)
        server = try TokenServer(config)
    }

    deinit { server.stop() }

    /// A client in `channel` as `uid`, its `joined` answer read.
    func member(uid: UInt32, channel: String = "room", lifetime: UInt32 = 600) throws -> WebSocketTestClient {
        let client = try WebSocketTestClient.open(port: server.port)
        client.send(text: #"{"type":"join","channel":"\#(channel)","uid":\#(uid),"token":"\#(fixture.token(channel: channel, uid: uid, lifetime: lifetime))"}"#)
        #expect(try client.notice()?.type == "joined")
        return client
    }
}

final class ServerLog: Sendable {
    let lines = Mutex<[String]>([])
}

extension WebSocketTestClient {
    func notice() throws -> [String: JSONValue]? {
        try nextText().flatMap { JSONValue.parse(Array($0.utf8))?.object }
    }
}

@Suite struct HubOverLoopbackTests {
    @Test func twoClientsSeeEachOtherAndEachOthersVideo() throws {
        let loopback = try LoopbackHub()
        let alice = try loopback.member(uid: 1)
        let bob = try loopback.member(uid: 2)
        #expect(try alice.notice() == ["type": .string("userJoined"), "uid": .integer(2)])
        bob.send(binary: videoFrame())
        var stamped = videoFrame()
        stamped[4] = 2
        #expect(try alice.next() == .binary(stamped))
    }

    @Test func aTokenForAnotherChannelIsRefusedOnTheWire() throws {
        let loopback = try LoopbackHub()
        let member = try loopback.member(uid: 1)
        let intruder = try WebSocketTestClient.open(port: loopback.server.port)
        intruder.send(text: #"{"type":"join","channel":"room","uid":9,"token":"\#(loopback.fixture.token(channel: "other", uid: 9))"}"#)
        #expect(try intruder.notice()?["reason"]?.string == "invalidToken")
        // The member hears of the next to join, and of nobody before it.
        _ = try loopback.member(uid: 2)
        #expect(try member.notice()?.int("uid") == 2)
    }

    @Test func theChannelInTheURLReachesTheHub() throws {
        let loopback = try LoopbackHub()
        let client = try WebSocketTestClient.open(port: loopback.server.port, path: "/hub?channel=room")
        client.send(text: #"{"type":"join","channel":"other","uid":1,"token":"\#(loopback.fixture.token(channel: "other", uid: 1))"}"#)
        #expect(try client.notice()?["message"]?.string?.contains("opened for channel room") == true)
    }

    @Test func whenATokenRunsOutTheOtherSeesTheUserGo() throws {
        let loopback = try LoopbackHub()
        let lapses = try loopback.member(uid: 1, lifetime: 60)
        let stays = try loopback.member(uid: 2)
        #expect(try lapses.notice()?.type == "userJoined")
        loopback.fixture.time.advance(by: 30)
        loopback.timeChanged()
        #expect(try lapses.notice()?.type == "tokenPrivilegeWillExpire")
        loopback.fixture.time.advance(by: 30)
        loopback.timeChanged()
        #expect(try lapses.notice()?["reason"]?.string == "tokenExpired")
        #expect(try stays.notice() == ["type": .string("userOffline"), "uid": .integer(1), "reason": .string("quit"), "reasonCode": .integer(0)])
    }

    @Test func aConnectionOutOfAnyChannelTooLongSeesTheCloseFrameAtOnce() throws {
        let loopback = try LoopbackHub(outsideLimit: .seconds(2))
        let idle = try WebSocketTestClient.open(port: loopback.server.port)
        idle.send(text: #"{"type":"leave"}"#)
        #expect(try idle.notice()?.type == "error", "the hub has the connection")
        loopback.fixture.time.advance(by: 2)
        loopback.timeChanged()
        let told = ContinuousClock.now
        let close = try #require(try idle.closeFrame(), "no close frame")
        #expect(close.code == .policyViolation)
        #expect(close.reason == "out of any channel for 2.0 seconds; connect again to join")
        #expect(ContinuousClock.now - told < .seconds(1))
    }

    @Test func anOversizedVideoFrameClosesWith1009AndALogLine() throws {
        let loopback = try LoopbackHub()
        let sender = try loopback.member(uid: 1)
        let other = try loopback.member(uid: 2)
        sender.send(binary: videoFrame(runs: [UInt8](repeating: 1, count: HubVideoFrame.maxBytes)))
        #expect(try sender.closeFrame()?.code == .messageTooBig)
        #expect(try other.notice() == ["type": .string("userOffline"), "uid": .integer(1), "reason": .string("dropped"), "reasonCode": .integer(1)])
        #expect(loopback.log.lines.withLock { $0 }.contains { $0.hasPrefix("hub #1 closed 1009: a video frame of 4103 bytes") })
    }
}
