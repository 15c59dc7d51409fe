import JSON

/// Settings that mean nothing to a simulation (logs, encoders, audio routes, rendering, preloading, parameters, dual
/// streams): each is checked as the SDK checks it, its bad arguments get the SDK's negative codes, and an accepted one
/// is recorded in the event stream as `simulatorNotice(.accepted)`. And the channel profile, which does mean something.
extension AgoraRtcEngineKit {
    /// Returns 0, or -2 for an empty path. No log is written: the event stream is the simulator's log.
    @discardableResult
    public func setLogFile(_ filePath: String) -> Int32 {
        guard !filePath.isEmpty else { return Self.invalidArgument }
        return accept(.setLogFile, filePath)
    }

    /// Returns 0, or -2 for a negative or non-finite size, a frame rate outside 1...60, or a bitrate below -1. Only
    /// the size is used: a local snapshot has it.
    @discardableResult
    public func setVideoEncoderConfiguration(_ config: AgoraVideoEncoderConfiguration) -> Int32 {
        let size = config.dimensions
        guard size.width.isFinite, size.height.isFinite, size.width >= 0, size.height >= 0,
              (1...60).contains(config.frameRate), config.bitrate >= -1, config.minBitrate >= -1 else {
            return Self.invalidArgument
        }
        let width = Int(size.width), height = Int(size.height)
        let advanced = config.advancedVideoOptions.map {
            " \($0.encodingPreference.name) \($0.compressionPreference.name)"
        } ?? ""
        return accept(.setVideoEncoderConfiguration,
                      "\(width)x\(height) \(config.frameRate) fps bitrate \(config.bitrate) "
                          + "\(config.orientationMode.name) mirror \(config.mirrorMode.name)" + advanced) {
            if width > 0, height > 0 { encoderSize = VideoSize(width: width, height: height) }
            encoderFrameRate = config.frameRate
        }
    }

    @discardableResult
    public func setDefaultAudioRouteToSpeakerphone(_ defaultToSpeaker: Bool) -> Int32 {
        accept(.setDefaultAudioRouteToSpeakerphone, "\(defaultToSpeaker)")
    }

    @discardableResult
    public func enableInstantMediaRendering() -> Int32 {
        accept(.enableInstantMediaRendering, "")
    }

    /// From now on each remote user's first frame is traced too: `videoRenderingTracingResultOfUid`, rendered, with
    /// the milliseconds since the join.
    @discardableResult
    public func startMediaRenderingTracing() -> Int32 {
        accept(.startMediaRenderingTracing, "") { tracesRendering = true }
    }

    /// Returns 0, or -2 for a connection no join could have.
    @discardableResult
    public func startMediaRenderingTracingEx(_ connection: AgoraRtcConnection) -> Int32 {
        guard Self.isJoinable(connection.key) else { return Self.invalidArgument }
        return accept(.startMediaRenderingTracingEx, connection.description)
    }

    /// Returns 0, or -102 for a channel name outside Agora's rules, -2 for a uid over 32 bits *[ours]*. The token is
    /// checked when the channel is joined, as in the SDK.
    @discardableResult
    public func preloadChannel(byToken token: String?, channelId: String, uid: UInt) -> Int32 {
        if let code = Self.checkJoinArguments(channelId: channelId, uid: uid) {
            return code == -Int32(AgoraErrorCode.invalidChannelId.rawValue) ? code : Self.invalidArgument
        }
        return accept(.preloadChannel, "\(channelId) \(uid)")
    }

    /// Returns 0, or -102 for a bad channel name, -2 for an empty account or one over 255 bytes.
    @discardableResult
    public func preloadChannel(byToken token: String?, channelId: String, userAccount: String) -> Int32 {
        if let code = Self.checkJoinArguments(channelId: channelId, uid: 0) { return code }
        guard Self.isValidAccount(userAccount) else { return Self.invalidArgument }
        return accept(.preloadChannelWithAccount, "\(channelId) \(userAccount)")
    }

    /// Returns 0, or -2 for text that is not a JSON object (the SDK's parameters are one).
    @discardableResult
    public func setParameters(_ options: String) -> Int32 {
        guard case .object = JSONValue.parse(Array(options.utf8)) else { return Self.invalidArgument }
        return accept(.setParameters, options)
    }

    /// Deprecated in the SDK since 4.2 in favour of `setDualStreamMode`, still called by many apps.
    @discardableResult
    public func enableDualStreamMode(_ enabled: Bool) -> Int32 {
        accept(.enableDualStreamMode, "\(enabled)")
    }

    /// The profile of the next join: live broadcasting shows hosts only, and an audience leaves for its peers.
    /// Returns 0, or -8 while the main connection is in a channel or joining one, where the SDK cannot change it
    /// *[ours: the code]*.
    @discardableResult
    public func setChannelProfile(_ profile: AgoraChannelProfile) -> Int32 {
        call {
            if let main, main.isActive { return -Int32(AgoraErrorCode.invalidState.rawValue) }
            self.profile = profile
            return 0
        }
    }

    static let invalidArgument = -Int32(AgoraErrorCode.invalidArgument.rawValue)

    func accept(_ method: AcceptedCall, _ arguments: String, apply: () -> Void = {}) -> Int32 {
        call {
            apply()
            emit(.simulatorNotice(.accepted(method, arguments: arguments)), on: nil)
            return 0
        }
    }
}
