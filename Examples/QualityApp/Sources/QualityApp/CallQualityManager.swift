import ChannelEngine
import GuideHarness

/// A subclass as ensure-channel-quality and cloud-proxy write theirs: the probe before the call, a cloud proxy, the
/// call's statistics; its callbacks override the base manager's.
@MainActor
final class CallQualityManager: QualityManager {
    let channel = "quality"
    let uid: UInt = 4321
    private var printedStats: Set<String> = []

    func setUp() {
        Guide.batch {
            Guide.call("setAudioProfile") { engine.setAudioProfile(.default) }
            Guide.call("setDualStreamMode") { engine.setDualStreamMode(.enableSimulcastStream) }
            // The SDKs before 4.5 take AgoraVideoFrameRate, later ones an integer: both build.
            let size = CGSize(width: 640, height: 360)
            let config = AgoraVideoEncoderConfiguration(size: size, frameRate: .fps10, bitrate: AgoraVideoBitrateStandard,
                                                        orientationMode: .adaptative, mirrorMode: .auto)
            let advanced = AgoraAdvancedVideoOptions()
            advanced.compressionPreference = .quality
            config.advancedVideoOptions = advanced
            Guide.call("setVideoEncoderConfiguration") { engine.setVideoEncoderConfiguration(config) }
            // LiveStreaming's camera: a lens from the query, stabilization, Center Stage where there is one.
            let camera = AgoraCameraCapturerConfiguration()
            if let lens = engine.queryCameraFocalLengthCapability()?.last {
                camera.cameraDirection = lens.cameraDirection == 1 ? .front : .rear
                camera.cameraFocalLengthType = lens.focalLengthType
            }
            Guide.call("setCameraCapturerConfiguration") { engine.setCameraCapturerConfiguration(camera) }
            Guide.call("setCameraStabilizationMode") { engine.setCameraStabilizationMode(.auto) }
            if !engine.isCameraCenterStageSupported() {
                Guide.call("enableCameraCenterStage (unsupported)") { engine.enableCameraCenterStage(true) }
            }
            // JoinChannelAudio's local mixer: the microphone and another channel's audio.
            let remote = AgoraMixedAudioStream()
            remote.sourceType = .remoteChannel
            remote.channelId = channel + "-2"
            let mixer = AgoraLocalAudioMixerConfiguration()
            mixer.audioInputStreams = [remote, AgoraMixedAudioStream()]
            Guide.call("startLocalAudioMixer") { engine.startLocalAudioMixer(mixer) }
            Guide.call("stopLocalAudioMixer") { engine.stopLocalAudioMixer() }
            Guide.call("setVideoScenario") { engine.setVideoScenario(.application1V1Scenario) }
            Guide.call("setRemoteRenderTargetFps") { engine.setRemoteRenderTargetFps(10) }
            Guide.call("setLocalRenderTargetFps") { engine.setLocalRenderTargetFps(.camera, targetFps: 5) }
            Guide.call("adjustRecordingSignalVolume") { engine.adjustRecordingSignalVolume(150) }
            Guide.call("adjustPlaybackSignalVolume (over 400)") { engine.adjustPlaybackSignalVolume(401) }
            Guide.call("enable(inEarMonitoring:)") { engine.enable(inEarMonitoring: true) }
            Guide.call("setInEarMonitoringVolume") { engine.setInEarMonitoringVolume(80) }
            Guide.call("switchCamera") { engine.switchCamera() }
            let echo = AgoraEchoTestConfiguration()
            echo.channelId = channel
            echo.intervalInSeconds = 2
            Guide.call("startEchoTest") { engine.startEchoTest(withConfig: echo) }
            Guide.call("stopEchoTest") { engine.stopEchoTest() }
            Guide.call("setCloudProxy") { engine.setCloudProxy(.udpProxy) }
            Guide.call("enableVideo") { engine.enableVideo() }
            let probe = AgoraLastmileProbeConfig()
            probe.probeUplink = true
            probe.probeDownlink = true
            probe.expectedUplinkBitrate = 100_000
            probe.expectedDownlinkBitrate = 100_000
            Guide.call("startLastmileProbeTest") { engine.startLastmileProbeTest(probe) }
        }
    }

    /// The call, once the probe is done: the older join, without a block, with a token from the server.
    func join() {
        Task {
            guard let token = await fetchToken(channel: channel, uid: uid) else { return Guide.say("no token") }
            Guide.call("joinChannel") { engine.joinChannel(byToken: token, channelId: channel, info: nil, uid: uid) }
        }
    }

    func leave() {
        Guide.call("muteLocalVideoStream") { engine.muteLocalVideoStream(true) }
        Guide.call("leaveChannel") { engine.leaveChannel(AgoraLeaveChannelOptions()) }
    }

    override func rtcEngine(_ engine: AgoraRtcEngineKit, connectionChangedTo state: AgoraConnectionState,
                            reason: AgoraConnectionChangedReason) {
        super.rtcEngine(engine, connectionChangedTo: state, reason: reason)
        Guide.say("connectionChangedTo \(state.name) \(reason.name)")
    }

    override func rtcEngine(_ engine: AgoraRtcEngineKit, didProxyConnected channel: String, withUid uid: UInt,
                            proxyType: AgoraProxyType, localProxyIp: String, elapsed: Int) {
        Guide.say("didProxyConnected \(proxyType.name)")
    }

    override func rtcEngine(_ engine: AgoraRtcEngineKit, lastmileQuality quality: AgoraNetworkQuality) {
        Guide.say("lastmileQuality \(quality == .excellent || quality == .good ? "excellent or good" : quality.name)")
    }

    override func rtcEngine(_ engine: AgoraRtcEngineKit, lastmileProbeTest result: AgoraLastmileProbeResult) {
        keep(result)
        Guide.say("lastmileProbeTest \(result.state.name), \(probeReport.isEmpty ? "not kept" : "kept as JSON")")
        Guide.call("stopLastmileProbeTest") { engine.stopLastmileProbeTest() }
        join()
    }

    override func rtcEngine(_ engine: AgoraRtcEngineKit, localVideoStats stats: AgoraRtcLocalVideoStats,
                            sourceType: AgoraVideoSourceType) {
        sayOnce("localVideoStats \(stats.encodedFrameWidth)x\(stats.encodedFrameHeight) \(stats.encoderOutputFrameRate) fps, "
                + "rendered at \(stats.rendererOutputFrameRate)")
    }

    override func rtcEngine(_ engine: AgoraRtcEngineKit, remoteVideoStats stats: AgoraRtcRemoteVideoStats) {
        guard stats.receivedFrameRate > 0 else { return }
        sayOnce("remoteVideoStats \(stats.receivedFrameRate) fps received, rendered at \(stats.rendererOutputFrameRate)")
    }

    /// The first report of each kind: later ones repeat it every 2 s.
    private func sayOnce(_ line: String) {
        if printedStats.insert(line).inserted { Guide.say("stats " + line) }
    }
}
