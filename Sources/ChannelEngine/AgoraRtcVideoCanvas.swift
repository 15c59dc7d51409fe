/// Where a user's video is drawn (`AgoraRtcVideoCanvas`): a class of settable properties, as in the SDK.
public final class AgoraRtcVideoCanvas {
    /// The user whose video this is; 0 for the local user.
    public var uid: UInt = 0
    /// What the app draws into. The SDK takes a UIView or NSView; Linux has neither, so the simulator takes any
    /// object the app chooses and hands it back through `AgoraRtcEngineKit.videoCanvas(forUid:)` *[ours]*.
    public var view: AnyObject?
    public var renderMode: AgoraVideoRenderMode = .hidden

    public init() {}
}

/// How video fills its view (`AgoraVideoRenderMode`).
public enum AgoraVideoRenderMode: Int, Sendable {
    case hidden = 1, fit = 2
}
