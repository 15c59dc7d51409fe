import AccessToken
@testable import ChannelEngine
import Foundation
import Synchronization
import TestSupport
import Testing

/// The SDK's threading: methods callable from any thread, callbacks on the main actor after the call returns.
@MainActor
@Suite struct ThreadingTests {
    /// A delegate that notes, for each callback, whether the call that caused it had already returned; a callback
    /// off the main actor stops the tests.
    final class App: AgoraRtcEngineDelegate {
        var callReturned = false
        /// Whether the call has returned, as the thread that made it knows it (a test whose call is made off the main actor).
        var returnedOffMain: (@Sendable () -> Bool)?
        var lines: [String] = []

        private func note(_ line: String) {
            MainActor.preconditionIsolated("callbacks arrive on the main actor")
            lines.append("\(line) \(returnedOffMain?() ?? callReturned ? "after" : "during")")
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
        // Whether the call had returned when each callback came, as the calling thread knew it: the test's own resumption
        // may wait behind the callbacks on a busy main actor, so it cannot be what says so.
        let returned = Atomic(false)
        app.returnedOffMain = { returned.load(ordering: .sequentiallyConsistent) }
        let joined = await Task.detached {
            defer { returned.store(true, ordering: .sequentiallyConsistent) }
            return engine.joinChannel(byToken: nil, channelId: "test", uid: 42) == 0
        }.value
        #expect(joined)
        for _ in 0..<1000 where app.lines.count < 2 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(app.lines == ["connecting after", "connected after"])
        engine.leaveChannel()
    }
}

/// A plain class that conforms to the delegate in its own declaration, as apps' call managers do: not isolated, so
/// its methods call the engine from URLSession's and Dispatch's threads; its callbacks still arrive on the main actor.
final class CallManager: AgoraRtcEngineDelegate, @unchecked Sendable {
    let engine: AgoraRtcEngineKit
    private let lock = NSLock()
    private var noted: [String] = []

    init(engine: AgoraRtcEngineKit) {
        self.engine = engine
    }

    var lines: [String] { lock.withLock { noted } }

    private func note(_ line: String) {
        MainActor.preconditionIsolated("callbacks arrive on the main actor")
        lock.withLock { noted.append(line) }
    }

    /// What a manager does in a URLSession completion.
    func join(with token: String) -> Int32 {
        engine.joinChannel(byToken: token, channelId: "test", uid: 42, mediaOptions: AgoraRtcChannelMediaOptions())
    }

    func renew(with token: String) -> Int32 {
        engine.renewToken(token)
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinChannel channel: String, withUid uid: UInt, elapsed: Int) {
        note("didJoinChannel \(uid)")
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, renewTokenResult token: String, code: AgoraRenewTokenErrorCode) {
        note("renewTokenResult \(code.name)")
    }
}

/// The engine without actor isolation: class methods and the initializer from any thread, a nonisolated delegate, and
/// many threads at once.
@MainActor
@Suite struct NonisolatedSurfaceTests {
    @Test func aPlainClassConformingInItsDeclarationCallsTheEngineFromOtherThreads() async {
        let h = Harness()
        let manager = CallManager(engine: h.engine)
        h.engine.delegate = manager
        let token = h.token()
        let joined = await Task.detached { manager.join(with: token) }.value
        #expect(joined == 0)
        await h.advance(1)
        let fresh = h.token(expire: 900)
        let renewed = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: manager.renew(with: fresh)) }
        }
        #expect(renewed == 0)
        await h.settle()
        #expect(manager.lines == ["didJoinChannel 42", "renewTokenResult success"])
    }

    /// Many threads asking for the shared engine at once get one engine; `destroy()` from another thread releases it.
    /// Synchronous on the main actor, so no other test's shared engine comes and goes meanwhile.
    @Test func theSharedEngineIsMadeOnceAndDestroyedFromAnyThread() {
        let made = Mutex<[AgoraRtcEngineKit]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            let config = AgoraRtcEngineConfig(appId: TestCredentials.appID, simulation: Simulation(remoteUsers: 0))
            let engine = AgoraRtcEngineKit.sharedEngine(with: config, delegate: nil)
            made.withLock { $0.append(engine) }
        }
        let engines = made.withLock { $0 }
        #expect(engines.count == 16)
        #expect(engines.allSatisfy { $0 === engines[0] })
        DispatchQueue.global().sync { AgoraRtcEngineKit.destroy() }
        let next = DispatchQueue.global().sync {
            AgoraRtcEngineKit.sharedEngine(withAppId: TestCredentials.appID, delegate: nil)
        }
        #expect(next !== engines[0])
        #expect(next.appId == TestCredentials.appID)
        AgoraRtcEngineKit.destroy()
    }

    /// An engine made on another thread, on a test's manual clock, runs its timers once the main actor has been free.
    @Test func anEngineMadeOffTheMainActorStillRunsItsTimersOnAManualClock() async {
        let clock = ManualClock(unixTime: 1_800_000_000)
        let simulation = Simulation(appCertificate: TestCredentials.certificate, clock: clock, unixTime: { clock.unixTime },
                                    remoteUsers: 0)
        let engine = await Task.detached {
            AgoraRtcEngineKit(config: AgoraRtcEngineConfig(appId: TestCredentials.appID, simulation: simulation), delegate: nil)
        }.value
        await clock.settle()
        let token = try! AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                               channel: "test", user: .uid(42), role: .publisher, tokenExpire: 600,
                                               privilegeExpire: 600, issuedAt: UInt32(clock.unixTime))
        #expect(engine.joinChannel(byToken: token, channelId: "test", uid: 42) == 0)
        await clock.advance(by: .seconds(1))
        #expect(engine.connectionState == .connected)
    }

    /// Eight threads make a thousand mixed calls each (roles, renewals, the microphone, canvases, a connection of
    /// their own) while the main actor delivers callbacks; afterwards every answer is accounted for and the engine is in
    /// the state the last calls left it in.
    @Test func manyThreadsHammeringTheEngineLeaveItConsistent() async {
        let h = Harness()
        await h.join()
        let engine = h.engine
        let threads = 8, rounds = 125
        let renewals = (0..<threads).map { h.token(expire: 900 + UInt32($0)) }
        let exTokens = (0..<threads).map { h.token(channel: "ex\($0)", uid: 1000 + UInt32($0)) }
        let done = Mutex(false), refused = Mutex(0)
        @Sendable func expectZero(_ code: Int32) { if code != 0 { refused.withLock { $0 += 1 } } }
        // A thread of its own, so the test's tasks keep the cooperative pool while Dispatch's threads call.
        Thread {
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                let connection = AgoraRtcConnection()
                connection.channelId = "ex\(thread)"
                connection.localUid = 1000 + UInt(thread)
                expectZero(engine.joinChannelEx(byToken: exTokens[thread], connection: connection, delegate: nil))
                for round in 0..<rounds {
                    let options = AgoraClientRoleOptions()
                    options.audienceLatencyLevel = round % 3 == 0 ? .lowLatency : .ultraLowLatency
                    expectZero(engine.setClientRole(round % 2 == 0 ? .audience : .broadcaster, options: options))
                    expectZero(engine.renewToken(renewals[thread]))
                    expectZero(engine.enableLocalAudio(round % 4 != 0))
                    let canvas = AgoraRtcVideoCanvas()
                    canvas.uid = UInt(thread)
                    canvas.view = round % 2 == 0 ? connection : nil
                    expectZero(engine.setupRemoteVideoEx(canvas, connection: connection))
                    expectZero(engine.setParameters(#"{"round":\#(round)}"#))
                    _ = engine.getConnectionState()
                    _ = engine.getConnectionStateEx(connection)
                }
                expectZero(engine.setClientRole(.broadcaster))
                expectZero(engine.enableLocalAudio(true))
                expectZero(engine.leaveChannelEx(connection))
            }
            done.withLock { $0 = true }
        }.start()
        while !done.withLock({ $0 }) {
            await h.settle()
            await Task.yield()
        }
        await h.advance(1)
        #expect(refused.withLock { $0 } == 0)
        #expect(!h.recorder.reentered)
        #expect(h.engine.connectionState == .connected)
        #expect(h.engine.clientRole == .broadcaster)
        let results = h.recorder.events.compactMap { event -> AgoraRenewTokenErrorCode? in
            if case .renewTokenResult(_, let code) = event { code } else { nil }
        }
        #expect(results == Array(repeating: .success, count: threads * rounds))
        #expect(Set(renewals).contains(h.engine.currentToken ?? ""))
        for thread in 0..<threads {
            #expect(h.engine.getConnectionStateEx(AgoraRtcConnection(channelId: "ex\(thread)", localUid: 1000 + thread)) == .disconnected)
        }
        // Each microphone report differs from the one before, and the last is what the last calls left.
        let microphone = h.recorder.allEvents.compactMap { event -> AgoraAudioLocalState? in
            if case .localAudioStateChanged(let state, _) = event { state } else { nil }
        }
        #expect(zip(microphone, microphone.dropFirst()).allSatisfy { $0 != $1 })
        #expect(microphone.last == .encoding)
        let roles = h.recorder.events.compactMap { event -> AgoraClientRole? in
            if case .didClientRoleChanged(_, let new, _) = event { new } else { nil }
        }
        #expect(roles.last == .broadcaster)
    }
}
