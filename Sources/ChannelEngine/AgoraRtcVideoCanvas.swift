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

    public init() {}
}

/// How video fills its view (`AgoraVideoRenderMode`).
public enum AgoraVideoRenderMode: Int, Sendable {
    case hidden = 1, fit = 2
}
