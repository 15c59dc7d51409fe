/// Statistics of a call (`AgoraChannelStats`), as `leaveChannel(_:)` and `didLeaveChannelWith` give them. The
/// simulator carries no media, so it counts time and users and reports no bytes, bitrates, delay or CPU *[ours]*.
public struct AgoraChannelStats: Sendable, Equatable {
    /// Seconds in the channel.
    public var duration: UInt = 0
    public var txBytes: UInt = 0
    public var rxBytes: UInt = 0
    /// Users in the channel, the local one included.
    public var userCount: UInt = 0
    public var cpuAppUsage: Double = 0
    public var cpuTotalUsage: Double = 0
    public var lastmileDelay: UInt = 0
    public var txKBitrate: UInt = 0
    public var rxKBitrate: UInt = 0
    public var txAudioKBitrate: UInt = 0
    public var rxAudioKBitrate: UInt = 0
    public var txVideoKBitrate: UInt = 0
    public var rxVideoKBitrate: UInt = 0

    public init() {}
}
