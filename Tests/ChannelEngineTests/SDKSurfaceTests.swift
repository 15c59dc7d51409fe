import AccessToken
@testable import ChannelEngine
import Foundation
import TestSupport
import Testing

/// Code written for Agora's SDK, as its header and guide write it, against the simulated engine.
@MainActor
@Suite struct SDKSurfaceTests {
    /// An app's delegate that implements only what the header names, as a guide app does.
    final class App: AgoraRtcEngineDelegate {
        var lines: [String] = []
        func rtcEngine(_ engine: AgoraRtcEngineKit, connectionChangedTo state: AgoraConnectionState,
                       reason: AgoraConnectionChangedReason) {
            lines.append("changedTo \(state.name) \(reason.name)")
        }
        func rtcEngine(_ engine: AgoraRtcEngineKit, connectionStateChanged state: AgoraConnectionState,
                       reason: AgoraConnectionChangedReason) {
            lines.append("guide \(state.name) \(reason.name)")
        }
        func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinChannel channel: String, withUid uid: UInt, elapsed: Int) {
            lines.append("didJoinChannel \(uid)")
        }
        func rtcEngine(_ engine: AgoraRtcEngineKit, didLeaveChannelWith stats: AgoraChannelStats) {
            lines.append("didLeaveChannelWith \(stats.duration) s")
        }
        func rtcEngine(_ engine: AgoraRtcEngineKit, firstRemoteVideoFrameOfUid uid: UInt, size: CGSize, elapsed: Int) {
            lines.append("firstRemoteVideoFrame \(Int(size.width))x\(Int(size.height))")
        }
        func rtcEngine(_ engine: AgoraRtcEngineKit, didLocalUserRegisteredWithUserId uid: UInt, userAccount: String) {
            lines.append("registered \(userAccount) \(uid)")
        }
    }

    private static func config(_ clock: ManualClock) -> AgoraRtcEngineConfig {
        let config = AgoraRtcEngineConfig()
        config.appId = TestCredentials.appID
        config.simulation = Simulation(appCertificate: TestCredentials.certificate, clock: clock,
                                       unixTime: { clock.unixTime }, remoteUsers: 1, peerChurn: false)
        return config
    }

    @Test func oneSharedEngineUntilDestroyed() {
        let clock = ManualClock(unixTime: 1_800_000_000)
        let first = AgoraRtcEngineKit.sharedEngine(with: Self.config(clock), delegate: nil)
        #expect(AgoraRtcEngineKit.sharedEngine(with: Self.config(clock), delegate: nil) === first)
        AgoraRtcEngineKit.destroy()
        let second = AgoraRtcEngineKit.sharedEngine(with: Self.config(clock), delegate: nil)
        #expect(second !== first)
        AgoraRtcEngineKit.destroy()
    }

    @Test func theEngineKeepsItsOwnCopyOfTheConfig() {
        let clock = ManualClock(unixTime: 1_800_000_000)
        let config = Self.config(clock)
        let engine = AgoraRtcEngineKit(config: config, delegate: nil)
        config.appId = "changed"
        #expect(engine.config.appId == TestCredentials.appID)
        #expect(engine.simulation.appCertificate == TestCredentials.certificate)
    }

    @Test func aGuideStyleCallBuildsAndRuns() async throws {
        let h = Harness(remoteUsers: 1)
        let app = App()
        h.engine.delegate = app
        let options = AgoraRtcChannelMediaOptions()
        options.clientRoleType = .broadcaster
        options.publishCameraTrack = true
        options.publishMicrophoneTrack = true
        options.autoSubscribeAudio = true
        options.autoSubscribeVideo = true
        h.engine.enableVideo()
        h.engine.startPreview()
        let local = AgoraRtcVideoCanvas()
        local.uid = 0
        local.renderMode = .hidden
        local.view = app
        h.engine.setupLocalVideo(local)
        #expect(h.engine.joinChannel(byToken: h.token(), channelId: "test", uid: 42, mediaOptions: options) == 0)
        await h.advance(3)
        #expect(h.engine.getConnectionState() == .connected)
        #expect(h.engine.videoCanvas(forUid: 0)?.view === app)
        h.engine.leaveChannel(nil)
        await h.settle()
        #expect(app.lines.prefix(5) == [
            "changedTo connecting connecting", "guide connecting connecting",
            "changedTo connected joinSuccess", "guide connected joinSuccess", "didJoinChannel 42",
        ])
        #expect(app.lines.contains { $0.hasPrefix("firstRemoteVideoFrame ") })
        #expect(app.lines.last == "didLeaveChannelWith 2 s")
    }

    @Test func aJoinSuccessBlockIsCalledInsteadOfDidJoinChannel() async {
        let h = Harness()
        let app = App()
        h.engine.delegate = app
        var joined: (String, UInt)?
        h.engine.joinChannel(byToken: h.token(), channelId: "test", uid: 42, mediaOptions: AgoraRtcChannelMediaOptions()) {
            channel, uid, _ in joined = (channel, uid)
        }
        await h.advance(1)
        #expect(joined?.0 == "test" && joined?.1 == 42)
        #expect(!app.lines.contains { $0.hasPrefix("didJoinChannel") })
        #expect(h.recorder.count("didJoinChannel") == 1)
    }

    @Test func aUserAccountJoinsWithATokenForThatAccount() async throws {
        let h = Harness()
        let app = App()
        h.engine.delegate = app
        #expect(h.engine.registerLocalUserAccount("alice", appId: TestCredentials.appID) == 0)
        await h.settle()
        let registered = try #require(app.lines.first)
        let token = try AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                              channel: "test", user: .account("alice"), role: .publisher, tokenExpire: 600,
                                              privilegeExpire: 600, issuedAt: UInt32(h.clock.unixTime), salt: 1)
        #expect(h.engine.joinChannel(byToken: token, channelId: "test", userAccount: "alice") == 0)
        await h.advance(1)
        #expect(h.engine.connectionState == .connected)
        let uid = try #require(h.engine.connection?.localUid)
        #expect(registered == "registered alice \(uid)")
        #expect(h.engine.joinChannel(byToken: token, channelId: "test", userAccount: "") == -2)
    }

    @Test func aUserAccountTokenDoesNotFitAUidJoin() async throws {
        let h = Harness()
        let token = try AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                              channel: "test", user: .account("alice"), role: .publisher, tokenExpire: 600,
                                              privilegeExpire: 600, issuedAt: UInt32(h.clock.unixTime), salt: 1)
        h.engine.joinChannel(byToken: token, channelId: "test", uid: 42)
        await h.advance(1)
        #expect(h.recorder.events.last == .didOccurError(.invalidToken))
    }

    @Test func casesAreNamedAsSwiftImportsTheHeaderAndPrintAsBefore() {
        #expect(AgoraConnectionChangedReason.reasonTokenExpired.rawValue == 9)
        #expect(AgoraConnectionChangedReason.reasonTokenExpired.name == "tokenExpired")
        #expect(AgoraConnectionChangedReason.reasonLost.name == "lost")
        #expect(AgoraConnectionChangedReason.sameUidLogin.name == "sameUidLogin")
        #expect(AgoraConnectionChangedReason.allCases.last?.rawValue == 22)
        #expect(AgoraErrorCode.invalidChannelId.rawValue == 102)
    }
}

@MainActor
@Suite struct SimulationFromEnvironmentTests {
    @Test func aProgramThatNeverMentionsTheSimulationGetsTheCertificateFromTheEnvironment() {
        #expect(Simulation.fromEnvironment(["APP_CERTIFICATE": TestCredentials.certificate]).appCertificate == TestCredentials.certificate)
        #expect(Simulation.fromEnvironment(["APP_CERTIFICATE": ""]).appCertificate == nil)
        #expect(Simulation.fromEnvironment([:]).appCertificate == nil)
        #expect(AgoraRtcEngineConfig().simulation.appCertificate
                == ProcessInfo.processInfo.environment["APP_CERTIFICATE"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// With the certificate known, a token signed with another one is refused as Agora's network refuses it; without
    /// it, the same token joins and the engine says once that it did not check the signature.
    @Test(arguments: [true, false])
    func theSignatureIsCheckedExactlyWhenTheCertificateIsKnown(known: Bool) async {
        let clock = ManualClock(unixTime: 1_800_000_000)
        var simulation = Simulation.fromEnvironment(known ? ["APP_CERTIFICATE": TestCredentials.certificate] : [:])
        simulation.clock = clock
        simulation.unixTime = { clock.unixTime }
        simulation.remoteUsers = 0
        let config = AgoraRtcEngineConfig()
        config.appId = TestCredentials.appID
        config.simulation = simulation
        let engine = AgoraRtcEngineKit(config: config, delegate: nil)
        let recorder = Recorder()
        recorder.observe(engine)
        let forged = try! AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: String(repeating: "0", count: 32),
                                                channel: "test", user: .uid(7), role: .publisher, tokenExpire: 600,
                                                privilegeExpire: 600, issuedAt: UInt32(clock.unixTime))
        engine.joinChannel(byToken: forged, channelId: "test", uid: 7, mediaOptions: AgoraRtcChannelMediaOptions())
        await clock.advance(by: .seconds(1))
        #expect(engine.getConnectionState() == (known ? .disconnected : .connected))
        #expect(recorder.events.filter { $0 == .simulatorNotice(.signatureNotChecked) }.count == (known ? 0 : 1))
    }
}
