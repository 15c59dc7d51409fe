/// Options for joining or updating a channel (`AgoraRtcChannelMediaOptions`): a class of settable properties of the
/// SDK's plain types, as Swift sees the header. Like the SDK, it remembers which ones were set: one never set leaves
/// that setting as it is, and reads as its default *[ours: the defaults]*. Only `token`, `clientRoleType`,
/// `audienceLatencyLevel` and (for the main connection) `channelProfile` change anything in the simulation.
public final class AgoraRtcChannelMediaOptions {
    public var token: String?
    public var clientRoleType: AgoraClientRole {
        get { roleIfSet ?? .broadcaster }
        set { roleIfSet = newValue }
    }
    public var audienceLatencyLevel: AgoraAudienceLatencyLevelType {
        get { latencyIfSet ?? .ultraLowLatency }
        set { latencyIfSet = newValue }
    }
    public var channelProfile: AgoraChannelProfile {
        get { profileIfSet ?? .liveBroadcasting }
        set { profileIfSet = newValue }
    }
    public var publishCameraTrack = false
    public var publishMicrophoneTrack = false
    public var autoSubscribeAudio = false
    public var autoSubscribeVideo = false
    public var publishMixedAudioTrack = false
    public var enableAudioRecordingOrPlayout = true

    private(set) var roleIfSet: AgoraClientRole?
    private(set) var latencyIfSet: AgoraAudienceLatencyLevelType?
    private(set) var profileIfSet: AgoraChannelProfile?

    public init() {}

    /// The simulator's shorthand for the two settings a token flow changes; nil leaves one unset.
    public convenience init(token: String? = nil, clientRoleType: AgoraClientRole? = nil) {
        self.init()
        self.token = token
        roleIfSet = clientRoleType
    }
}
