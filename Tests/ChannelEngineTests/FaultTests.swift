@testable import ChannelEngine
import Testing

@MainActor
@Suite struct FaultTests {
    @Test func aLostLinkShowsAfter4SecondsIsLostAt10AndDropsPeersAt20() async {
        let h = Harness(remoteUsers: 2)
        await h.join()
        await h.advance(9)  // now 10 s, both peers in
        let peers = h.engine.remoteUids
        #expect(peers.count == 2)
        h.recorder.clear()
        h.engine.simulateNetworkInterruption(true)
        await h.advance(3.9)
        #expect(h.recorder.states.isEmpty)
        #expect(peers.allSatisfy { h.engine.videoSource(forUid: $0)?.frozenAt == .seconds(10) })
        await h.advance(0.1)
        #expect(h.recorder.states == [.connectionStateChanged(.reconnecting, reason: .reasonInterrupted)])
        await h.advance(6)
        #expect(h.recorder.states.last == .connectionStateChanged(.reconnecting, reason: .reasonLost))
        await h.advance(10)
        #expect(peers.allSatisfy { h.recorder.events.contains(.didOfflineOfUid($0, reason: .dropped)) })
        #expect(h.recorder.times(of: "didOfflineOfUid") == [.seconds(30), .seconds(30)])
        h.recorder.clear()
        h.engine.simulateNetworkInterruption(false)
        await h.settle()
        #expect(h.recorder.states == [.connectionStateChanged(.connected, reason: .reasonRejoinSuccess)])
        #expect(h.recorder.count("didJoinedOfUid") == 2)
        await h.advance(1)
        #expect(peers.allSatisfy { h.engine.videoSource(forUid: $0)?.frozenAt == nil })
    }

    @Test func aShortBlipChangesNoState() async {
        let h = Harness(remoteUsers: 1)
        await h.join()
        h.recorder.clear()
        h.engine.simulateNetworkInterruption(true)
        await h.advance(3)
        h.engine.simulateNetworkInterruption(false)
        await h.settle()
        await h.advance(30)
        #expect(h.recorder.states.isEmpty)
        #expect(h.recorder.count("didOfflineOfUid") == 0)
    }

    @Test func twentyMinutesWithoutALinkFails() async {
        let h = Harness()
        await h.join(expire: 86_400)
        h.engine.simulateNetworkInterruption(true)
        await h.advance(20 * 60)
        #expect(h.recorder.states.last == .connectionStateChanged(.failed, reason: .reasonJoinFailed))
        #expect(h.engine.connectionState == .failed)
    }

    @Test func aJoinWaitsForTheLink() async {
        let h = Harness()
        h.engine.simulateNetworkInterruption(true)
        h.engine.joinChannel(byToken: h.token(), channelId: "test", uid: 42)
        await h.advance(5)
        #expect(h.engine.connectionState == .connecting)
        h.engine.simulateNetworkInterruption(false)
        await h.settle()
        #expect(h.engine.connectionState == .connected)
    }

    @Test func aBanFailsTheConnection() async {
        let h = Harness(remoteUsers: 1)
        await h.join()
        h.engine.simulateBan()
        await h.settle()
        #expect(h.recorder.states.last == .connectionStateChanged(.failed, reason: .reasonBannedByServer))
        await h.advance(700)
        #expect(h.recorder.count("requestToken") == 0)
        #expect(h.engine.remoteUids.isEmpty)
        h.engine.renewToken(h.token())
        await h.settle()
        #expect(h.recorder.events.last == .renewTokenResult(token: h.token(), code: .failure))
    }
}

@MainActor
@Suite struct MultiChannelTests {
    @Test func anExConnectionHasItsOwnDelegateStateAndToken() async {
        let h = Harness(remoteUsers: 1)
        await h.join()
        let other = Recorder()
        let connection = AgoraRtcConnection(channelId: "second", localUid: 7)
        let token = h.token(channel: "second", uid: 7, expire: 100)
        #expect(h.engine.joinChannelEx(byToken: token, connection: connection, delegate: other) == 0)
        #expect(h.engine.joinChannelEx(byToken: token, connection: connection, delegate: other) == -17)
        #expect(h.engine.joinChannelEx(byToken: token, connection: AgoraRtcConnection(channelId: "x", localUid: 0),
                                       delegate: other) == -121)
        let mainEvents = h.recorder.events.count
        await h.advance(5)
        #expect(h.engine.getConnectionStateEx(connection) == .connected)
        #expect(other.events.contains(.didJoinChannel(channel: "second", uid: 7, elapsed: 250)))
        #expect(other.count("didJoinedOfUid") == 1)
        #expect(h.recorder.events.count == mainEvents + 0 || h.recorder.events[mainEvents...].allSatisfy { $0.name != "didJoinChannel" })
        let fresh = h.token(channel: "second", uid: 7, expire: 600)
        #expect(h.engine.updateChannelEx(with: AgoraRtcChannelMediaOptions(token: fresh), connection: connection) == 0)
        await h.advance(200)
        #expect(other.count("requestToken") == 0)
        #expect(h.engine.leaveChannelEx(connection) == 0)
        await h.settle()
        #expect(other.events.last == .simulatorNotice(.localUserOfflineForPeers(.quit)))
        #expect(h.engine.getConnectionStateEx(connection) == .disconnected)
        #expect(h.engine.updateChannelEx(with: AgoraRtcChannelMediaOptions(token: fresh), connection: connection) == -8)
        #expect(h.engine.connectionState == .connected)
    }

    @Test func anExConnectionExpiresOnItsOwn() async {
        let h = Harness()
        await h.join(expire: 3600)
        let other = Recorder()
        let connection = AgoraRtcConnection(channelId: "second", localUid: 7)
        _ = h.engine.joinChannelEx(byToken: h.token(channel: "second", uid: 7, expire: 60), connection: connection, delegate: other)
        await h.advance(61)
        #expect(other.count("tokenPrivilegeWillExpire") == 1)
        #expect(other.count("requestToken") == 1)
        #expect(h.recorder.count("requestToken") == 0)
        #expect(h.engine.connectionState == .connected)
    }
}
