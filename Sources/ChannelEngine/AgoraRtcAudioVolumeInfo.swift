/// One speaker in a volume report (`AgoraRtcAudioVolumeInfo`): uid 0 is the local user.
public struct AgoraRtcAudioVolumeInfo: Sendable, Equatable {
    public var uid: UInt
    /// 0 (silent) to 255.
    public var volume: UInt
    /// 1 when voice is detected, 0 when not (only with `reportVad`, else 0).
    public var vad: UInt

    public init(uid: UInt, volume: UInt, vad: UInt = 0) {
        self.uid = uid
        self.volume = volume
        self.vad = vad
    }
}
