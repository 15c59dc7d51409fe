/// Options for joining or updating a channel (`AgoraRtcChannelMediaOptions`): a class of settable properties, as in
/// the SDK. A property left nil leaves that setting as it is (the SDK keeps the same "unset" state internally).
public final class AgoraRtcChannelMediaOptions {
    public var token: String?
    public var clientRoleType: AgoraClientRole?
    public var channelProfile: AgoraChannelProfile?
    public var publishCameraTrack: Bool?
    public var publishMicrophoneTrack: Bool?
    public var autoSubscribeAudio: Bool?
    public var autoSubscribeVideo: Bool?

    public init() {}

    /// The simulator's shorthand for the two settings a token flow changes.
    public convenience init(token: String? = nil, clientRoleType: AgoraClientRole? = nil) {
        self.init()
        self.token = token
        self.clientRoleType = clientRoleType
    }
}
