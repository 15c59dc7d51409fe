@testable import ChannelEngine
import Testing

/// What Agora documents where the simulator once did otherwise (issue 11, item 3).
@MainActor
@Suite struct DocumentedBehaviourTests {
    @Test func theSameTokenPresentedAgainDoesNotWarnAgain() async {
        let h = Harness()
        let token = h.token(expire: 120)
        #expect(h.engine.joinChannel(byToken: token, channelId: "test", uid: 42) == 0)
        await h.advance(95)
        #expect(h.recorder.count("tokenPrivilegeWillExpire") == 1)
        #expect(h.engine.renewToken(token) == 0)
        #expect(h.engine.updateChannel(with: AgoraRtcChannelMediaOptions(token: token)) == 0)
        await h.advance(30)
        #expect(h.recorder.count("tokenPrivilegeWillExpire") == 1)
        #expect(h.recorder.count("requestToken") == 1)
    }

    @Test func updateChannelRefusesAFailedConnection() async {
        let h = Harness()
        await h.join(expire: 60)
        await h.advance(60)
        #expect(h.engine.connectionState == .failed)
        h.recorder.clear()
        #expect(h.engine.updateChannel(with: AgoraRtcChannelMediaOptions(token: h.token())) == -8)
        #expect(h.recorder.events.isEmpty)
        #expect(h.engine.connectionState == .failed)
    }

    @Test func renewingWhileConnectingReportsOnceTheTokenIsChecked() async {
        let h = Harness()
        #expect(h.engine.joinChannel(byToken: h.token(), channelId: "test", uid: 42) == 0)
        let wrong = h.token(uid: 7)
        #expect(h.engine.renewToken(wrong) == 0)
        #expect(h.recorder.count("renewTokenResult") == 0)
        await h.advance(1)
        #expect(h.recorder.events.filter { $0.name == "renewTokenResult" } == [.renewTokenResult(token: wrong, code: .invalidToken)])
        #expect(h.recorder.states.last == .connectionStateChanged(.disconnected, reason: .reasonInvalidToken))
    }

    @Test func renewingWhileConnectingWithAGoodTokenSucceedsAfterTheJoin() async {
        let h = Harness()
        #expect(h.engine.joinChannel(byToken: h.token(uid: 7), channelId: "test", uid: 42) == 0)
        let good = h.token()
        #expect(h.engine.renewToken(good) == 0)
        #expect(h.recorder.count("renewTokenResult") == 0)
        await h.advance(1)
        #expect(h.recorder.events.contains(.renewTokenResult(token: good, code: .success)))
        #expect(h.engine.connectionState == .connected)
        #expect(h.engine.currentToken == good)
    }

    @Test func becomingAudienceBeforeJoiningIsReported() async {
        let h = Harness()
        #expect(h.engine.setClientRole(.audience) == 0)
        await h.settle()
        #expect(h.recorder.events == [.didClientRoleChanged(old: .broadcaster, new: .audience)])
    }

    @Test func comingBackAfterAnOutageRejoins() async {
        let h = Harness()
        let app = Recorder()
        h.engine.delegate = app
        await h.join()
        h.engine.simulateNetworkInterruption(true)
        await h.advance(5)
        h.recorder.clear()
        app.clear()
        h.engine.simulateNetworkInterruption(false)
        await h.settle()
        #expect(h.recorder.states == [.connectionStateChanged(.connected, reason: .reasonRejoinSuccess)])
        #expect(app.events.contains(.didRejoinChannel(channel: "test", uid: 42, elapsed: 6000)))
    }
}
