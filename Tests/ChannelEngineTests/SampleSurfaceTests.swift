@testable import ChannelEngine
import Foundation
import TestSupport
import Testing

/// What real iOS samples call around the token (issue 37): the SDK's default-nil blocks and both frame-rate shapes,
/// callbacks a subclass adds, mutes, the last-mile probe, the cloud proxy, render frame rates, tracing, the 4.2-era
/// local-state callbacks, and the settings recorded.
@MainActor
@Suite struct SampleSurfaceTests {
    final class Lines: AgoraRtcEngineDelegate {
        var lines: [String] = []
        func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinChannel channel: String, withUid uid: UInt, elapsed: Int) {
            lines.append("didJoinChannel \(channel) \(uid)")
        }
        func rtcEngine(_ engine: AgoraRtcEngineKit, didLeaveChannelWith stats: AgoraChannelStats) {
            lines.append("didLeaveChannelWith")
        }
    }

    @Test func theOlderJoinAndTheLeavesWithOptionsNeedNoBlock() async {
        let h = Harness()
        let app = Lines()
        h.engine.delegate = app
        #expect(h.engine.joinChannel(byToken: h.token(), channelId: "test", info: nil, uid: 42) == 0)
        let connection = AgoraRtcConnection(channelId: "second", localUid: 42)
        #expect(h.engine.joinChannelEx(byToken: h.token(channel: "second"), connection: connection, delegate: app) == 0)
        await h.advance(1)
        #expect(h.engine.leaveChannelEx(connection, options: AgoraLeaveChannelOptions()) == 0)
        #expect(h.engine.leaveChannel(AgoraLeaveChannelOptions()) == 0)
        await h.settle()
        #expect(app.lines == ["didJoinChannel test 42", "didJoinChannel second 42", "didLeaveChannelWith",
                              "didLeaveChannelWith"])
    }

    @Test func anEncoderConfigurationTakesTheFrameRateAsTheEnumOrAnInteger() async throws {
        let older = AgoraVideoEncoderConfiguration(size: CGSize(width: 640, height: 360), frameRate: .fps10,
                                                   bitrate: AgoraVideoBitrateStandard, orientationMode: .adaptative,
                                                   mirrorMode: .auto)
        let newer = AgoraVideoEncoderConfiguration(width: 640, height: 360, frameRate: 10, bitrate: AgoraVideoBitrateStandard,
                                                   orientationMode: .adaptative, mirrorMode: .auto)
        #expect(older.frameRate == 10 && newer.frameRate == 10 && older.dimensions == newer.dimensions)
        let h = Harness()
        #expect(h.engine.setVideoEncoderConfiguration(older) == 0)
        h.engine.enableVideo()
        await h.join()
        await h.advance(2)
        let stats = try #require(h.recorder.allEvents.compactMap { if case .localVideoStats(let s, _) = $0 { s } else { nil } }.first)
        #expect(stats.encodedFrameWidth == 640 && stats.encodedFrameHeight == 360)
        #expect(stats.encoderOutputFrameRate == 10 && stats.sentFrameRate == 10 && stats.rendererOutputFrameRate == 10)
    }

    /// The sample's shape: a base class conforms (in an extension) and a subclass adds a callback. Swift binds the
    /// requirement to the base class's witness, so the subclass's method alone is never called; declared in the base
    /// class and overridden, it is (`Docs/agora-parity.md`, "The one thing to change").
    class Manager: NSObject {
        var lines: [String] = []
        func rtcEngine(_ engine: AgoraRtcEngineKit, connectionChangedTo state: AgoraConnectionState,
                       reason: AgoraConnectionChangedReason) {}
    }
    final class ProxyManager: Manager {
        override func rtcEngine(_ engine: AgoraRtcEngineKit, connectionChangedTo state: AgoraConnectionState,
                                reason: AgoraConnectionChangedReason) {
            lines.append("connectionChangedTo \(state.name)")
        }
        func rtcEngine(_ engine: AgoraRtcEngineKit, didProxyConnected channel: String, withUid uid: UInt,
                       proxyType: AgoraProxyType, localProxyIp: String, elapsed: Int) {
            lines.append("didProxyConnected \(proxyType.name)")
        }
    }

    @Test func aCallbackASubclassAddsRunsOnlyWhenItsBaseClassDeclaresIt() async {
        let h = Harness()
        let manager = ProxyManager()
        h.engine.delegate = manager
        #expect(h.engine.setCloudProxy(.udpProxy) == 0)
        await h.join()
        #expect(h.recorder.allEvents.contains(.didProxyConnected(channel: "test", uid: 42, proxyType: .udpProxyType, elapsed: 250)))
        #expect(manager.lines == ["connectionChangedTo connecting", "connectionChangedTo connected"])
    }

    @Test func aCloudProxyIsReportedOnceAJoinIsAcceptedAndNoneGoesStraight() async {
        let h = Harness()
        #expect(h.engine.setCloudProxy(.tcpProxy) == 0)
        await h.join()
        let names = h.recorder.events.map(\.name).filter { ["didJoinChannel", "didProxyConnected"].contains($0) }
        #expect(names == ["didJoinChannel", "didProxyConnected"])
        #expect(h.recorder.events.contains(.didProxyConnected(channel: "test", uid: 42, proxyType: .tcpProxyType, elapsed: 250)))
        h.engine.leaveChannel()
        h.engine.setCloudProxy(.noneProxy)
        h.recorder.clear()
        await h.join()
        #expect(h.recorder.count("didProxyConnected") == 0 && h.recorder.count("didJoinChannel") == 1)
    }

    final class OlderShapes: AgoraRtcEngineDelegate {
        var lines: [String] = []
        func rtcEngine(_ engine: AgoraRtcEngineKit, localAudioStateChanged state: AgoraAudioLocalState,
                       error: AgoraAudioLocalError) {
            lines.append("audio \(state.name) \(error.name)")
        }
        func rtcEngine(_ engine: AgoraRtcEngineKit, localVideoStateChangedOf state: AgoraVideoLocalState,
                       error: AgoraLocalVideoStreamError, sourceType: AgoraVideoSourceType) {
            lines.append("video \(state.name) \(error.name)")
        }
    }

    @Test func theOlderLocalStateCallbacksAreCalledAsTheNewerOnesAre() async {
        let h = Harness()
        let app = OlderShapes()
        h.engine.delegate = app
        h.engine.enableVideo()
        await h.join()
        #expect(app.lines == ["audio recording ok", "audio encoding ok", "video capturing ok", "video encoding ok"])
    }

    private func remoteStates(_ h: Harness) -> [String] {
        h.recorder.allEvents.compactMap { event in
            switch event {
            case .remoteAudioStateChanged(let uid, let state, let reason, _): "audio \(uid) \(state.name) \(reason.name)"
            case .remoteVideoStateChanged(let uid, let state, let reason, _) where reason != .internal:
                "video \(uid) \(state.name) \(reason.name)"
            case .simulatorNotice(.localMuteForPeers(let audio, let muted)): "peers see \(audio ? "audio" : "video") muted \(muted)"
            default: nil
            }
        }
    }

    @Test func mutesAreSeenByPeersAndASimulatedUsersMuteIsSeenHere() async throws {
        let h = Harness(remoteUsers: 1)
        #expect(h.engine.muteLocalAudioStream(true) == 0)
        await h.join()
        let peer = try #require(h.engine.remoteUids.first)
        h.engine.muteLocalAudioStream(true)
        h.engine.muteLocalAudioStream(false)
        h.engine.muteLocalVideoStream(true)
        #expect(h.engine.simulateRemoteMute(peer, audio: true, muted: true))
        #expect(h.engine.simulateRemoteMute(peer, audio: false, muted: true))
        #expect(h.engine.simulateRemoteMute(peer, audio: false, muted: false))
        #expect(!h.engine.simulateRemoteMute(peer + 1, audio: true, muted: true))
        await h.settle()
        #expect(remoteStates(h) == [
            "peers see audio muted false", "peers see video muted true",
            "audio \(peer) stopped remoteMuted", "video \(peer) stopped remoteMuted", "video \(peer) decoding remoteUnmuted",
        ])
        h.engine.enableVideo()
        await h.advance(2)
        let stats = h.recorder.allEvents.compactMap { if case .localVideoStats(let s, _) = $0 { s } else { nil } }.last
        #expect(stats?.sentFrameRate == 0 && stats?.encoderOutputFrameRate == 15)
    }

    private func probes(_ h: Harness) -> [(Duration, AgoraRtcEvent)] {
        h.recorder.all.filter { ["lastmileQuality", "lastmileProbeTest"].contains($0.event.name) }.map { ($0.at, $0.event) }
    }

    @Test func aLastMileProbeReportsTheQualityAfterTwoSecondsAndItsResultAfterThirty() async throws {
        let h = Harness()
        let config = AgoraLastmileProbeConfig()
        #expect(h.engine.startLastmileProbeTest(nil) == -2)
        #expect(h.engine.startLastmileProbeTest(config) == -2)
        config.probeUplink = true
        config.expectedUplinkBitrate = 99_999
        #expect(h.engine.startLastmileProbeTest(config) == -2)
        config.expectedUplinkBitrate = 100_000
        let start = h.engine.now
        #expect(h.engine.startLastmileProbeTest(config) == 0)
        await h.advance(31)
        let seen = probes(h)
        #expect(seen.map(\.0) == [start + .seconds(2), start + .seconds(30)])
        guard case .lastmileQuality(let quality) = seen.first?.1 else { Issue.record("no lastmileQuality"); return }
        #expect([.excellent, .good].contains(quality))
        guard case .lastmileProbeTest(let result) = seen.last?.1 else { Issue.record("no lastmileProbeTest"); return }
        #expect(result.state == .complete && result.rtt > 0 && result.uplinkReport.availableBandwidth > 0)
        #expect(result.downlinkReport == AgoraLastmileProbeOneWayResult())
        // Through an interrupted network: down, unavailable; a stopped probe reports nothing more.
        h.recorder.clear()
        h.engine.simulateNetworkInterruption(true)
        h.engine.startLastmileProbeTest(config)
        await h.advance(31)
        #expect(probes(h).map(\.1) == [.lastmileQuality(.down), .lastmileProbeTest(AgoraLastmileProbeResult())])
        h.recorder.clear()
        h.engine.simulateNetworkInterruption(false)
        h.engine.startLastmileProbeTest(config)
        await h.advance(3)
        #expect(h.engine.stopLastmileProbeTest() == 0)
        await h.advance(30)
        #expect(probes(h).map(\.1.name) == ["lastmileQuality"])
        // Not during a call.
        await h.join()
        #expect(h.engine.startLastmileProbeTest(config) == -8)
    }

    @Test func renderTargetFrameRatesCapWhatTheStatisticsSayIsRendered() async throws {
        let h = Harness(remoteUsers: 1)
        #expect(h.engine.setRemoteRenderTargetFps(0) == -2 && h.engine.setLocalRenderTargetFps(.camera, targetFps: 61) == -2)
        #expect(h.engine.setRemoteRenderTargetFps(10) == 0 && h.engine.setLocalRenderTargetFps(.camera, targetFps: 5) == 0)
        h.engine.enableVideo()
        await h.join()
        await h.advance(2)
        let remote = try #require(h.recorder.allEvents.compactMap { if case .remoteVideoStats(let s) = $0 { s } else { nil } }.last)
        #expect(remote.receivedFrameRate == 15 && remote.decoderOutputFrameRate == 15 && remote.rendererOutputFrameRate == 10)
        let local = try #require(h.recorder.allEvents.compactMap { if case .localVideoStats(let s, _) = $0 { s } else { nil } }.last)
        #expect(local.encoderOutputFrameRate == 15 && local.rendererOutputFrameRate == 5)
    }

    @Test func tracingReportsEachRemoteUsersFirstFrameWhenItIsRendered() async throws {
        let h = Harness(remoteUsers: 2)
        h.engine.startMediaRenderingTracing()
        await h.join()
        let frames = h.recorder.events.compactMap { if case .firstRemoteVideoFrame(let uid, _, let ms) = $0 { [uid, UInt(ms)] } else { nil } }
        let traced = h.recorder.events.compactMap { event -> [UInt]? in
            guard case .videoRenderingTracingResult(let uid, .videoFrameRendered, let info) = event else { return nil }
            return [uid, UInt(info.elapsedTime)]
        }
        #expect(!frames.isEmpty && traced == frames)
    }

    @Test func theSamplesSettingsAreCheckedAndRecorded() async {
        let h = Harness()
        await h.settle()
        h.recorder.clear()
        let echo = AgoraEchoTestConfiguration()
        echo.channelId = "test"
        echo.intervalInSeconds = 11
        let refused: [Int32] = [
            h.engine.setRemoteVideoStream(0, type: .low), h.engine.setRemoteVideoStream(1 << 33, type: .low),
            h.engine.adjustRecordingSignalVolume(401), h.engine.adjustPlaybackSignalVolume(-1),
            h.engine.setInEarMonitoringVolume(500), h.engine.startEchoTest(withConfig: echo),
            h.engine.startEchoTest(withConfig: AgoraEchoTestConfiguration()),
        ]
        #expect(refused == [-2, -2, -2, -2, -2, -2, -102])
        await h.settle()
        #expect(h.recorder.allEvents.isEmpty)
        echo.intervalInSeconds = 2
        let accepted: [Int32] = [
            h.engine.setAudioProfile(.musicHighQuality), h.engine.setAudioScenario(.gameStreaming),
            h.engine.setVideoScenario(.application1V1Scenario), h.engine.setDualStreamMode(.enableSimulcastStream),
            h.engine.setRemoteVideoStream(7, type: .low), h.engine.switchCamera(), h.engine.adjustRecordingSignalVolume(200),
            h.engine.adjustPlaybackSignalVolume(0), h.engine.enable(inEarMonitoring: true), h.engine.setInEarMonitoringVolume(50),
            h.engine.startEchoTest(withConfig: echo), h.engine.stopEchoTest(),
        ]
        #expect(accepted.allSatisfy { $0 == 0 })
        await h.settle()
        #expect(h.recorder.allEvents == [
            .simulatorNotice(.accepted(.setAudioProfile, arguments: "musicHighQuality")),
            .simulatorNotice(.accepted(.setAudioScenario, arguments: "gameStreaming")),
            .simulatorNotice(.accepted(.setVideoScenario, arguments: "application1V1Scenario")),
            .simulatorNotice(.accepted(.setDualStreamMode, arguments: "enableSimulcastStream")),
            .simulatorNotice(.accepted(.setRemoteVideoStream, arguments: "7 low")),
            .simulatorNotice(.accepted(.switchCamera, arguments: "")),
            .simulatorNotice(.accepted(.adjustRecordingSignalVolume, arguments: "200")),
            .simulatorNotice(.accepted(.adjustPlaybackSignalVolume, arguments: "0")),
            .simulatorNotice(.accepted(.enableInEarMonitoring, arguments: "true")),
            .simulatorNotice(.accepted(.setInEarMonitoringVolume, arguments: "50")),
            .simulatorNotice(.accepted(.startEchoTest, arguments: "test 2 s audio true video true")),
            .simulatorNotice(.accepted(.stopEchoTest, arguments: "")),
        ])
        await h.join()
        #expect(h.engine.startEchoTest(withConfig: echo) == -8)
    }

    @Test func theConfigsAudioScenarioIsRecordedAsTheEngineStarts() async {
        let clock = ManualClock()
        let config = AgoraRtcEngineConfig(appId: TestCredentials.appID, simulation: Simulation(clock: clock))
        config.audioScenario = .chorus
        let engine = AgoraRtcEngineKit(config: config, delegate: nil)
        var events: [AgoraRtcEvent] = []
        engine.observer = { events.append($0) }
        config.audioScenario = .meeting
        await clock.advance(by: .zero)
        #expect(events == [.networkTypeChanged(.lan), .simulatorNotice(.accepted(.setAudioScenario, arguments: "chorus"))])
    }
}

extension SampleSurfaceTests.Manager: AgoraRtcEngineDelegate {}
