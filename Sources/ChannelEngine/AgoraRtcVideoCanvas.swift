import Foundation

/// Where a user's video is drawn (`AgoraRtcVideoCanvas`): a class of settable properties, as in the SDK.
public final class AgoraRtcVideoCanvas {
    /// The user whose video this is; 0 for the local user.
    public var uid: UInt = 0
    /// What the app draws into. The SDK takes a UIView or NSView; Linux has neither, so the simulator takes any
    /// object the app chooses and hands it back through `AgoraRtcEngineKit.videoCanvas(forUid:)` *[ours]*.
    public var view: AnyObject?
    public var renderMode: AgoraVideoRenderMode = .hidden
    /// Kept for whatever draws the view; the engine draws nothing itself.
    public var mirrorMode: AgoraVideoMirrorMode = .auto
    /// RGBA, as the header has it; 0 (the default) is black.
    public var backgroundColor: UInt32 = 0
    /// The part of the video shown, in pixels; `.zero`, the default, shows it all. Kept for whatever draws the view.
    public var cropArea = CGRect.zero
    /// `.remove` removes the user's canvas as a nil `view` does; `.add` replaces it here, one canvas per user *[ours]*.
    public var setupMode = AgoraVideoViewSetupMode.replace
    /// Kept for whatever draws the view.
    public var enableAlphaMask = false
    /// What the local canvas shows; only the camera has a picture here.
    public var sourceType = AgoraVideoSourceType.camera
    /// The media player shown when `sourceType` is `.mediaPlayer`; there are no media players here.
    public var mediaPlayerId: Int32 = 0

    public init() {}

    var isKept: Bool { view != nil && setupMode != .remove }
}

/// How `setupLocalVideo` and `setupRemoteVideo` treat a user's canvases (`AgoraVideoViewSetupMode`).
public enum AgoraVideoViewSetupMode: Int, AgoraCode {
    case replace = 0, add = 1, remove = 2
}

/// How video fills its view (`AgoraVideoRenderMode`).
public enum AgoraVideoRenderMode: Int, Sendable {
    case hidden = 1, fit = 2
}
