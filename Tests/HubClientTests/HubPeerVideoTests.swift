import HubClient
import HubProtocol
import TestSupport
import Testing
import WebSocket

@Suite struct HubPeerVideoTests {
    @Test func aPeerSendingBrokenVideoIsClosedAndARealClientBesideItStaysConnected() throws {
        let hub = try ServedHub()
        let (connection, events) = try openConnection(hub.address)
        defer { connection.close() }
        #expect(events.next() == .connected)
        connection.send(ServedHub.join(1))
        #expect(events.next()?.notice.map { if case .joined = $0 { true } else { false } } == true)
        let peer = try WebSocketTestClient.open(port: hub.server.port)
        peer.send(text: ServedHub.join(2).json)
        #expect(try peer.nextText()?.contains(#""type":"joined""#) == true)
        #expect(events.next() == .notice(.userJoined(HubPeer(uid: 2, account: nil))))
        // The issue's frame: a valid 32×18 header, then one run of 10 cells; sent as a peer would, ten times.
        for _ in 0..<10 { peer.send(binary: [1, 0, 0, 0, 0, 0x20, 0x12, 0x0A, 0xFF, 0, 0]) }
        #expect(events.next() == .notice(.userOffline(uid: 2, reason: .dropped)))
        let close = try #require(try peer.closeFrame())
        #expect(close.code == .policyViolation)
        #expect(close.reason == "a video frame's runs hold 10 cells, not its 32×18")
        // Still connected and in the channel: the next peer's good frame arrives.
        let good = try WebSocketTestClient.open(port: hub.server.port)
        good.send(text: ServedHub.join(3).json)
        _ = try good.nextText()
        #expect(events.next() == .notice(.userJoined(HubPeer(uid: 3, account: nil))))
        let frame = try #require(HubVideoFrame(columns: 2, rows: 1, cells: Array(repeating: HubVideoFrame.Color(red: 1, green: 2, blue: 3), count: 2)))
        good.send(binary: frame.encoded)
        var stamped = frame
        stamped.uid = 3
        #expect(events.next() == .video(stamped))
    }
}
