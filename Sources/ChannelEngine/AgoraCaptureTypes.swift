import Foundation

/// Which camera (`AgoraCameraDirection`).
public enum AgoraCameraDirection: Int, AgoraCode {
    case rear = 0, front = 1
}

/// A camera's focal length (`AgoraFocalLength`).
public enum AgoraFocalLength: Int, AgoraCode {
    case `default` = 0, wide = 1, ultraWide = 2, telephoto = 3
}

/// One focal length a camera has (`AgoraFocalLengthInfo`); `cameraDirection` is `AgoraCameraDirection`'s number, as
/// the header's `int`.
public final class AgoraFocalLengthInfo {
    public let cameraDirection: Int32
    public let focalLengthType: AgoraFocalLength

    init(_ direction: AgoraCameraDirection, _ focalLength: AgoraFocalLength) {
        cameraDirection = Int32(direction.rawValue)
        focalLengthType = focalLength
    }
}

/// How the camera captures (`AgoraCameraCapturerConfiguration`): which camera and which of its focal lengths.
public final class AgoraCameraCapturerConfiguration {
    public var cameraDirection = AgoraCameraDirection.front
    public var cameraFocalLengthType = AgoraFocalLength.default

    public init() {}
}

/// The camera's stabilization (`AgoraCameraStabilizationMode`).
public enum AgoraCameraStabilizationMode: Int, AgoraCode {
    case off = -1, auto = 0, level1 = 1, level2 = 2, level3 = 3
}

/// A still image published instead of the camera (`AgoraImageTrackOptions`).
public final class AgoraImageTrackOptions {
    public var imageUrl: String?
    public var fps: Int32 = 1
    public var mirrorMode = AgoraVideoMirrorMode.disabled

    public init() {}
}

/// Where a watermark goes (`WatermarkOptions`: the header's name has no prefix).
public final class WatermarkOptions {
    public var visibleInPreview = true
    public var positionInLandscapeMode = CGRect.zero
    public var positionInPortraitMode = CGRect.zero

    public init() {}
}

/// Encoder preferences (`AgoraAdvancedVideoOptions`), part of `AgoraVideoEncoderConfiguration`.
public final class AgoraAdvancedVideoOptions {
    public var encodingPreference = AgoraEncodingPreference.preferAuto
    public var compressionPreference = AgoraCompressionPreference.auto

    public init() {}
}

/// Hardware or software encoding (`AgoraEncodingPreference`, the header's lower-case names).
public enum AgoraEncodingPreference: Int, AgoraCode {
    case preferAuto = -1, prefersoftware = 0, preferhardware = 1
}

/// Latency or quality first (`AgoraCompressionPreference`).
public enum AgoraCompressionPreference: Int, AgoraCode {
    case auto = -1, lowLatency = 0, quality = 1
}

/// Where in the video pipeline a frame is taken (`AgoraVideoModulePosition`, a bit each).
public enum AgoraVideoModulePosition: Int, AgoraCode {
    case postCapture = 1, preRenderer = 2, preEncoder = 4, postCaptureOrigin = 8
}

/// A snapshot's file and pipeline position (`AgoraSnapshotConfig`).
public final class AgoraSnapshotConfig {
    public var filePath: String?
    public var position = AgoraVideoModulePosition.preEncoder

    public init() {}
}

/// Where a mixed audio stream comes from (`AgoraAudioSourceType`).
public enum AgoraAudioSourceType: Int, AgoraCode {
    case microphone = 0, custom = 1, mediaPlayer = 2, loopbackRecording = 3, mixedStream = 4, remoteUser = 5
    case remoteChannel = 6, unknown = 100
}

/// One input of the local audio mixer (`AgoraMixedAudioStream`).
public final class AgoraMixedAudioStream {
    public var sourceType = AgoraAudioSourceType.microphone
    public var remoteUserUid: UInt = 0
    public var channelId: String?
    public var trackId = -1

    public init() {}
}

/// What the local audio mixer mixes (`AgoraLocalAudioMixerConfiguration`).
public final class AgoraLocalAudioMixerConfiguration {
    public var audioInputStreams: [AgoraMixedAudioStream] = []
    public var syncWithLocalMic = true

    public init() {}
}
