import Timers

/// The audio, video, stream, probe and proxy calls real apps make around the token: recorded as the settings are
/// (`+Settings`), and simulated where the simulation has something to say (a mute, the last-mile probe, the cloud
/// proxy, render frame rates).
extension AgoraRtcEngineKit {
    @discardableResult
    public func setAudioProfile(_ profile: AgoraAudioProfile) -> Int32 {
        accept(.setAudioProfile, profile.name)
    }

    @discardableResult
    public func setAudioScenario(_ scenario: AgoraAudioScenario) -> Int32 {
        accept(.setAudioScenario, scenario.name)
    }

    @discardableResult
    public func setVideoScenario(_ scenarioType: AgoraApplicationScenarioType) -> Int32 {
        accept(.setVideoScenario, scenarioType.name)
    }

    @discardableResult
    public func setDualStreamMode(_ mode: AgoraSimulcastStreamMode) -> Int32 {
        accept(.setDualStreamMode, mode.name)
    }

    /// Returns 0, or -2 for a uid over 32 bits or 0 (the local user).
    @discardableResult
    public func setRemoteVideoStream(_ uid: UInt, type streamType: AgoraVideoStreamType) -> Int32 {
        guard uid != 0, uid <= UInt(UInt32.max) else { return Self.invalidArgument }
        return accept(.setRemoteVideoStream, "\(uid) \(streamType.name)")
    }

    @discardableResult
    public func switchCamera() -> Int32 {
        accept(.switchCamera, "")
    }

    /// Returns 0, or -2 for a volume outside 0...400 (100 is the original).
    @discardableResult
    public func adjustRecordingSignalVolume(_ volume: Int) -> Int32 {
        guard Self.signalVolumes.contains(volume) else { return Self.invalidArgument }
        return accept(.adjustRecordingSignalVolume, "\(volume)")
    }

    /// Returns 0, or -2 for a volume outside 0...400 (100 is the original).
    @discardableResult
    public func adjustPlaybackSignalVolume(_ volume: Int) -> Int32 {
        guard Self.signalVolumes.contains(volume) else { return Self.invalidArgument }
        return accept(.adjustPlaybackSignalVolume, "\(volume)")
    }

    @discardableResult
    public func enable(inEarMonitoring enabled: Bool) -> Int32 {
        accept(.enableInEarMonitoring, "\(enabled)")
    }

    /// Returns 0, or -2 for a volume outside 0...400.
    @discardableResult
    public func setInEarMonitoringVolume(_ volume: Int) -> Int32 {
        guard Self.signalVolumes.contains(volume) else { return Self.invalidArgument }
        return accept(.setInEarMonitoringVolume, "\(volume)")
    }

    /// The SDK's range of signal volumes (`adjustRecordingSignalVolume` and the like).
    static let signalVolumes = 0...400

    /// Caps the frame rate `localVideoStats` reports as rendered. Returns 0, or -2 for a rate outside 1...60.
    @discardableResult
    public func setLocalRenderTargetFps(_ sourceType: AgoraVideoSourceType, targetFps: Int32) -> Int32 {
        guard Self.frameRates.contains(Int(targetFps)) else { return Self.invalidArgument }
        return accept(.setLocalRenderTargetFps, "\(sourceType.name) \(targetFps)") { localRenderFps = Int(targetFps) }
    }

    /// Caps the frame rate `remoteVideoStats` reports as rendered. Returns 0, or -2 for a rate outside 1...60.
    @discardableResult
    public func setRemoteRenderTargetFps(_ targetFps: Int32) -> Int32 {
        guard Self.frameRates.contains(Int(targetFps)) else { return Self.invalidArgument }
        return accept(.setRemoteRenderTargetFps, "\(targetFps)") { remoteRenderFps = Int(targetFps) }
    }

    /// The frame rates an encoder and a renderer take.
    static let frameRates = 1...60

    /// Stops or resumes sending the microphone's audio; peers see it as `remoteAudioStateChanged` stopped / remoteMuted
    /// (`simulatorNotice(.localMuteForPeers)` says so while in a channel). The microphone keeps recording.
    @discardableResult
    public func muteLocalAudioStream(_ mute: Bool) -> Int32 {
        call { muteLocal(audio: true, mute) }
    }

    /// Stops or resumes sending the camera's video; peers see it as `remoteVideoStateChanged` stopped / remoteMuted.
    @discardableResult
    public func muteLocalVideoStream(_ mute: Bool) -> Int32 {
        call { muteLocal(audio: false, mute) }
    }

    private func muteLocal(audio: Bool, _ mute: Bool) -> Int32 {
        let changed = audio ? localAudioMuted != mute : localVideoMuted != mute
        if audio { localAudioMuted = mute } else { localVideoMuted = mute }
        emit(.simulatorNotice(.accepted(audio ? .muteLocalAudioStream : .muteLocalVideoStream, arguments: "\(mute)")), on: nil)
        if changed, let main, main.isInChannel {
            emit(.simulatorNotice(.localMuteForPeers(audio: audio, muted: mute)), on: main)
        }
        tellHubMedia()
        return 0
    }

    /// What a remote user's muting looks like here, for the engine's simulated users (the simulator's control):
    /// `remoteAudioStateChanged` or `remoteVideoStateChanged`, stopped / remoteMuted or decoding / remoteUnmuted, on
    /// the main connection. Returns false when the main connection has announced no such user.
    @discardableResult
    public func simulateRemoteMute(_ uid: UInt, audio: Bool, muted: Bool) -> Bool {
        call {
            guard let main, main.isInChannel, main.announced.contains(uid) else { return false }
            let elapsed = elapsedMilliseconds(since: main.joinStartedAt)
            if audio {
                emit(.remoteAudioStateChanged(uid: uid, state: muted ? .stopped : .decoding,
                                              reason: muted ? .remoteMuted : .remoteUnmuted, elapsed: elapsed), on: main)
            } else {
                setRemoteVideo(muted ? .stopped : .decoding, muted ? .remoteMuted : .remoteUnmuted, of: uid, on: main)
            }
            return true
        }
    }

    /// Asks for a cloud proxy: the next joins go through it and report `didProxyConnected` with its type once
    /// accepted (`.noneProxy` goes straight again, with no report).
    @discardableResult
    public func setCloudProxy(_ proxyType: AgoraCloudProxyType) -> Int32 {
        accept(.setCloudProxy, proxyType.name) { cloudProxy = proxyType }
    }

    /// The proxy type `didProxyConnected` reports for the cloud proxy asked for; nil for none.
    var connectedProxy: AgoraProxyType? {
        switch cloudProxy {
        case .noneProxy: nil
        case .udpProxy: .udpProxyType
        case .tcpProxy: .tcpProxyType
        }
    }

    /// Tests the link before a call: `lastmileQuality` after 2 s, then `lastmileProbeTest` after the probe's
    /// 30 s, both from the simulated network (down while it is interrupted). Returns 0, or -2 for no config, nothing
    /// to probe or an expected bitrate outside 100 000...5 000 000 bps, -8 while the main connection is in a channel
    /// (the SDK probes before a call) *[ours: the code]*.
    @discardableResult
    public func startLastmileProbeTest(_ config: AgoraLastmileProbeConfig?) -> Int32 {
        guard let config, config.probeUplink || config.probeDownlink,
              !config.probeUplink || Self.probeBitrates.contains(config.expectedUplinkBitrate),
              !config.probeDownlink || Self.probeBitrates.contains(config.expectedDownlinkBitrate) else {
            return Self.invalidArgument
        }
        let uplink = config.probeUplink, downlink = config.probeDownlink
        return call {
            if let main, main.isActive { return -Int32(AgoraErrorCode.invalidState.rawValue) }
            timers.cancel(probeTimers)
            probeTimers = [
                timers.schedule(after: Self.lastmileQualityDelay) { [weak self] in
                    self?.fire { self?.emit(.lastmileQuality(self?.probeQuality() ?? .unknown), on: nil) }
                },
                timers.schedule(after: Self.lastmileProbeDuration) { [weak self] in
                    self?.fire {
                        guard let self else { return }
                        self.probeTimers = []
                        self.emit(.lastmileProbeTest(self.probeResult(uplink: uplink, downlink: downlink)), on: nil)
                    }
                },
            ]
            return 0
        }
    }

    /// Stops a probe: nothing more is reported.
    @discardableResult
    public func stopLastmileProbeTest() -> Int32 {
        call {
            timers.cancel(probeTimers)
            probeTimers = []
            return 0
        }
    }

    static let probeBitrates: ClosedRange<UInt> = 100_000...5_000_000
    static let lastmileQualityDelay: Duration = .seconds(2)
    static let lastmileProbeDuration: Duration = .seconds(30)

    /// The local link's quality as the network reports draw it: down while interrupted.
    private func probeQuality() -> AgoraNetworkQuality {
        networkDownSince != nil ? .down : (Int.random(in: 0..<10, using: &qualityRandom) < 5 ? .excellent : .good)
    }

    /// A probe's figures: complete with the link up, unavailable while it is down; a LAN's round trip and jitter,
    /// no loss, the machine's bandwidth as the probe's most *[ours]*.
    private func probeResult(uplink: Bool, downlink: Bool) -> AgoraLastmileProbeResult {
        var result = AgoraLastmileProbeResult()
        guard networkDownSince == nil else { return result }
        result.state = .complete
        result.rtt = UInt.random(in: 1...5, using: &qualityRandom)
        var way = AgoraLastmileProbeOneWayResult()
        way.jitter = UInt.random(in: 0...2, using: &qualityRandom)
        way.availableBandwidth = Self.probeBitrates.upperBound / 1000
        if uplink { result.uplinkReport = way }
        if downlink { result.downlinkReport = way }
        return result
    }

    /// Starts an echo test: recorded, as nothing is captured to play back. Returns 0, or -102 for a channel name
    /// outside Agora's rules, -2 for an interval outside 2...10 s, -8 while the main connection is in a channel.
    @discardableResult
    public func startEchoTest(withConfig config: AgoraEchoTestConfiguration) -> Int32 {
        let channelId = config.channelId ?? ""
        if let code = Self.checkJoinArguments(channelId: channelId, uid: 0) { return code }
        guard (2...10).contains(config.intervalInSeconds) else { return Self.invalidArgument }
        let arguments = "\(channelId) \(config.intervalInSeconds) s audio \(config.enableAudio) video \(config.enableVideo)"
        return call {
            if let main, main.isActive { return -Int32(AgoraErrorCode.invalidState.rawValue) }
            return accept(.startEchoTest, arguments)
        }
    }

    @discardableResult
    public func stopEchoTest() -> Int32 {
        accept(.stopEchoTest, "")
    }

    /// What the 2 s report says of the local video while the camera encodes: the encoder configuration's size and
    /// frame rate, rendered at most at `setLocalRenderTargetFps`'s.
    var localVideoStats: AgoraRtcLocalVideoStats {
        var stats = AgoraRtcLocalVideoStats()
        stats.captureFrameWidth = encoderSize.width
        stats.captureFrameHeight = encoderSize.height
        stats.encodedFrameWidth = encoderSize.width
        stats.encodedFrameHeight = encoderSize.height
        stats.captureFrameRate = encoderFrameRate
        stats.encoderOutputFrameRate = encoderFrameRate
        stats.targetFrameRate = encoderFrameRate
        stats.sentFrameRate = localVideoMuted ? 0 : encoderFrameRate
        stats.rendererOutputFrameRate = min(encoderFrameRate, localRenderFps ?? encoderFrameRate)
        return stats
    }
}
