import Foundation

/// How the local video would be encoded (`AgoraVideoEncoderConfiguration`): a class of settable properties, as in the
/// SDK, with its defaults. The simulator encodes nothing, so `setVideoEncoderConfiguration(_:)` checks and records it.
public final class AgoraVideoEncoderConfiguration {
    public var dimensions = CGSize(width: 960, height: 540)
    /// Frames per second (`AgoraVideoFrameRate`'s raw values).
    public var frameRate = AgoraVideoFrameRate.fps15.rawValue
    /// Kbps, or `AgoraVideoBitrateStandard` (0) or `AgoraVideoBitrateCompatible` (-1).
    public var bitrate = AgoraVideoBitrateStandard
    public var minBitrate = AgoraVideoBitrateDefaultMin
    public var orientationMode = AgoraVideoOutputOrientationMode.adaptative
    public var mirrorMode = AgoraVideoMirrorMode.disabled
    public var advancedVideoOptions: AgoraAdvancedVideoOptions?

    public init() {}

    public convenience init(size: CGSize, frameRate: Int, bitrate: Int, orientationMode: AgoraVideoOutputOrientationMode,
                            mirrorMode: AgoraVideoMirrorMode) {
        self.init()
        dimensions = size
        self.frameRate = frameRate
        self.bitrate = bitrate
        self.orientationMode = orientationMode
        self.mirrorMode = mirrorMode
    }

    /// The SDKs before 4.5 take the frame rate as `AgoraVideoFrameRate`; later ones as an integer, as above.
    public convenience init(size: CGSize, frameRate: AgoraVideoFrameRate, bitrate: Int,
                            orientationMode: AgoraVideoOutputOrientationMode, mirrorMode: AgoraVideoMirrorMode) {
        self.init(size: size, frameRate: frameRate.rawValue, bitrate: bitrate, orientationMode: orientationMode,
                  mirrorMode: mirrorMode)
    }

    public convenience init(width: Int, height: Int, frameRate: AgoraVideoFrameRate, bitrate: Int,
                            orientationMode: AgoraVideoOutputOrientationMode, mirrorMode: AgoraVideoMirrorMode) {
        self.init(width: width, height: height, frameRate: frameRate.rawValue, bitrate: bitrate,
                  orientationMode: orientationMode, mirrorMode: mirrorMode)
    }

    public convenience init(width: Int, height: Int, frameRate: Int, bitrate: Int,
                            orientationMode: AgoraVideoOutputOrientationMode, mirrorMode: AgoraVideoMirrorMode) {
        self.init(size: CGSize(width: Double(width), height: Double(height)), frameRate: frameRate, bitrate: bitrate,
                  orientationMode: orientationMode, mirrorMode: mirrorMode)
    }
}

/// The SDK's standard bitrate: the encoder picks it from the resolution and frame rate.
public let AgoraVideoBitrateStandard = 0
/// The SDK's compatible (adaptive) bitrate.
public let AgoraVideoBitrateCompatible = -1
/// The SDK's default minimum bitrate: chosen by the encoder.
public let AgoraVideoBitrateDefaultMin = -1

/// Encoder frame rates (`AgoraVideoFrameRate`).
public enum AgoraVideoFrameRate: Int, Sendable, CaseIterable {
    case fps1 = 1, fps7 = 7, fps10 = 10, fps15 = 15, fps24 = 24, fps30 = 30, fps60 = 60
}

/// How the encoded video is oriented (`AgoraVideoOutputOrientationMode`).
public enum AgoraVideoOutputOrientationMode: Int, AgoraCode {
    case adaptative = 0, fixedLandscape = 1, fixedPortrait = 2
}

/// Whether video is mirrored (`AgoraVideoMirrorMode`).
public enum AgoraVideoMirrorMode: Int, AgoraCode {
    case auto = 0, enabled = 1, disabled = 2
}
