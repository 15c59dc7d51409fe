@testable import ChannelEngine
import Foundation
import TestSupport
import Testing

/// The SDK's threading: methods callable from any thread, callbacks on the main actor after the call returns.
@MainActor
@Suite struct ThreadingTests {
    /// A delegate that notes, for each callback, whether the call that caused it had already returned; a callback
    /// off the main actor stops the tests.
    final class App: AgoraRtcEngineDelegate {
        var callReturned = false
        var lines: [String] = []

        private func note(_ line: String) {
            MainActor.preconditionIsolated("callbacks arrive on the main actor")
            lines.append("\(line) \(callReturned ? "after" : "during")")
        }
        func rtcEngine(_ engine: AgoraRtcEngineKit, connectionChangedTo state: AgoraConnectionState,
                       reason: AgoraConnectionChangedReason) {
            note("\(state.name)")
        }
        func rtcEngine(_ engine: AgoraRtcEngineKit, didLeaveChannelWith stats: AgoraChannelStats) { note("didLeave") }
        func rtcEngine(_ engine: AgoraRtcEngineKit, renewTokenResult token: String, code: AgoraRenewTokenErrorCode) {
            note("renewTokenResult \(code.name)")
        }
        func rtcEngine(_ engine: AgoraRtcEngineKit, didClientRoleChanged oldRole: AgoraClientRole, newRole: AgoraClientRole,
                       newRoleOptions: AgoraClientRoleOptions?) {
            note("role \(newRole.name)")
        }
    }

    @Test func joinChannelReturns0BeforeTheConnectingCallbackArrives() async {
        let h = Harness()
        let app = App()
        h.engine.delegate = app
        #expect(h.engine.joinChannel(byToken: h.token(), channelId: "test", uid: 42) == 0)
        #expect(app.lines.isEmpty)
        #expect(h.recorder.events.isEmpty)
        app.callReturned = true
        await h.settle()
        #expect(app.lines == ["connecting after"])
        #expect(h.recorder.events == [.connectionStateChanged(.connecting, reason: .reasonConnecting)])
    }

    @Test func leaveChannelReturnsBeforeDidLeaveAndItsBlockArrive() async {
        let h = Harness()
        let app = App()
        h.engine.delegate = app
        await h.join()
        app.lines = []
        var blockCalled = false
        h.engine.leaveChannel { _ in
            blockCalled = true
            app.lines.append("block")
        }
        #expect(!blockCalled)
        app.callReturned = true
        await h.settle()
        #expect(app.lines == ["disconnected after", "didLeave after", "block"])
    }

    @Test func setClientRoleBeforeJoiningReportsAfterTheCallReturns() async {
        let h = Harness()
        let app = App()
        h.engine.delegate = app
        h.engine.setClientRole(.audience)
        #expect(app.lines.isEmpty)
        app.callReturned = true
        await h.settle()
        #expect(app.lines == ["role audience after"])
    }

    @Test func renewTokenFromABackgroundThreadWorksAndItsResultArrivesOnTheMainActor() async {
        let h = Harness()
        let app = App()
        h.engine.delegate = app
        await h.join(expire: 60)
        app.lines = []
        app.callReturned = true
        let engine = h.engine
        let fresh = h.token(expire: 600)
        let (code, onMain) = await Task.detached {
            (engine.renewToken(fresh), Thread.isMainThread)
        }.value
        #expect(code == 0)
        #expect(!onMain)
        await h.settle()
        #expect(app.lines == ["renewTokenResult success after"])
        #expect(h.engine.tokenExpiresAt == Int64(h.clock.unixTime) + 600)
        await h.advance(120)
        #expect(h.recorder.count("requestToken") == 0)
    }

    @Test func callsFromManyThreadsAtOnceAreEachAnsweredInOrder() async {
        let h = Harness()
        await h.join()
        h.recorder.clear()
        let engine = h.engine
        let tokens = (0..<8).map { h.token(expire: 600 + UInt32($0)) }
        await withTaskGroup(of: Int32.self) { group in
            for token in tokens { group.addTask { engine.renewToken(token) } }
            for await code in group { #expect(code == 0) }
        }
        await h.settle()
        let results = h.recorder.events.compactMap { event -> String? in
            guard case .renewTokenResult(let token, .success) = event else { return nil }
            return token
        }
        #expect(Set(results) == Set(tokens))
        #expect(h.engine.currentToken == results.last)
    }

    @Test func onARealClockCallbacksArriveOnTheMainActorWhenItIsFree() async throws {
        let config = AgoraRtcEngineConfig(appId: TestCredentials.appID,
                                          simulation: Simulation(clock: ContinuousClock(), remoteUsers: 0,
                                                                 joinLatency: .milliseconds(20)))
        let engine = AgoraRtcEngineKit(config: config, delegate: nil)
        let app = App()
        engine.delegate = app
        app.callReturned = await Task.detached {
            engine.joinChannel(byToken: nil, channelId: "test", uid: 42) == 0
        }.value
        for _ in 0..<200 where app.lines.count < 2 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(app.lines == ["connecting after", "connected after"])
        engine.leaveChannel()
    }
}
