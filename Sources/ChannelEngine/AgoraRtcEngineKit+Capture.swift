import Foundation

/// The camera, watermarks, image sources and the local audio mixer (API-Examples' `LiveStreaming` and
/// `JoinChannelAudio`): the simulated device's cameras are answered from, the rest is checked and recorded, as there is
/// no camera, picture pipeline or audio to change.
extension AgoraRtcEngineKit {
    /// The simulated device's cameras *[ours]*: a front one with its default lens, a rear one with its default and
    /// ultra-wide lenses.
    static let focalLengths: [(AgoraCameraDirection, AgoraFocalLength)] = [
        (.front, .default), (.rear, .default), (.rear, .ultraWide),
    ]

    /// The focal lengths the simulated device's cameras have.
    public func queryCameraFocalLengthCapability() -> [AgoraFocalLengthInfo]? {
        Self.focalLengths.map { AgoraFocalLengthInfo($0, $1) }
    }

    /// Returns 0, or -2 for a focal length the chosen camera does not have (`queryCameraFocalLengthCapability`).
    @discardableResult
    public func setCameraCapturerConfiguration(_ config: AgoraCameraCapturerConfiguration) -> Int32 {
        let wanted = (config.cameraDirection, config.cameraFocalLengthType)
        guard Self.focalLengths.contains(where: { $0 == wanted }) else { return Self.invalidArgument }
        return accept(.setCameraCapturerConfiguration, "\(wanted.0.name) \(wanted.1.name)")
    }

    @discardableResult
    public func setCameraStabilizationMode(_ mode: AgoraCameraStabilizationMode) -> Int32 {
        accept(.setCameraStabilizationMode, mode.name)
    }

    /// False: the simulated camera has no Center Stage *[ours]*.
    public func isCameraCenterStageSupported() -> Bool { false }

    /// Returns -4 (not supported): the simulated camera has no Center Stage.
    @discardableResult
    public func enableCameraCenterStage(_ enabled: Bool) -> Int32 {
        -Int32(AgoraErrorCode.notSupported.rawValue)
    }

    /// Returns 0, or -2 for enabling with no image.
    @discardableResult
    public func enableVideoImageSource(_ enable: Bool, options: AgoraImageTrackOptions) -> Int32 {
        let image = options.imageUrl ?? ""
        guard !enable || !image.isEmpty else { return Self.invalidArgument }
        return accept(.enableVideoImageSource, enable ? "true \(image) \(options.fps) fps" : "false")
    }

    /// Returns 0, or -2 for an empty URL.
    @discardableResult
    public func addVideoWatermark(_ url: URL, options: WatermarkOptions) -> Int32 {
        guard !url.absoluteString.isEmpty else { return Self.invalidArgument }
        let portrait = options.positionInPortraitMode
        return accept(.addVideoWatermark, "\(url.absoluteString) at \(Int(portrait.minX)),\(Int(portrait.minY)) "
                          + "\(Int(portrait.width))x\(Int(portrait.height)) preview \(options.visibleInPreview)")
    }

    @discardableResult
    public func clearVideoWatermarks() -> Int32 {
        accept(.clearVideoWatermarks, "")
    }

    /// Returns 0, or -2 for no streams, a remote channel's stream naming no channel or a remote user's naming no user.
    @discardableResult
    public func startLocalAudioMixer(_ config: AgoraLocalAudioMixerConfiguration) -> Int32 {
        let streams = config.audioInputStreams
        guard !streams.isEmpty, streams.allSatisfy(Self.isMixable) else { return Self.invalidArgument }
        let described = streams.map { stream in
            switch stream.sourceType {
            case .remoteChannel: "remoteChannel \(stream.channelId ?? "")"
            case .remoteUser: "remoteUser \(stream.remoteUserUid)"
            default: stream.sourceType.name
            }
        }
        return accept(.startLocalAudioMixer, described.joined(separator: ", ") + " sync \(config.syncWithLocalMic)")
    }

    @discardableResult
    public func stopLocalAudioMixer() -> Int32 {
        accept(.stopLocalAudioMixer, "")
    }

    private static func isMixable(_ stream: AgoraMixedAudioStream) -> Bool {
        switch stream.sourceType {
        case .remoteChannel: !(stream.channelId ?? "").isEmpty
        case .remoteUser: stream.remoteUserUid != 0
        default: true
        }
    }
}
