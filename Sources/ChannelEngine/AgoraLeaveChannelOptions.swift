/// What to stop when leaving (`AgoraLeaveChannelOptions`): the simulator plays no music, effects or microphone, so a
/// leave with options is a leave.
public final class AgoraLeaveChannelOptions {
    public var stopAudioMixing = true
    public var stopAllEffect = true
    public var stopMicrophoneRecording = true

    public init() {}
}
