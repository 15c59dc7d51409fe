/// One channel connection of the multi-channel API (`AgoraRtcConnection`): a class, as in the SDK, made with its
/// values or empty and then set; equal only to itself, as the SDK's `NSObject` is, so apps can key by it.
public final class AgoraRtcConnection: CustomStringConvertible, Hashable {
    public var channelId: String
    public var localUid: UInt

    public init() {
        channelId = ""
        localUid = 0
    }

    /// The header takes `localUid` as `NSInteger` here; a negative one is 0.
    public init(channelId: String, localUid: Int) {
        self.channelId = channelId
        self.localUid = UInt(clamping: localUid)
    }

    public var description: String { "\(channelId)/\(localUid)" }

    var key: ConnectionKey { ConnectionKey(channelId: channelId, localUid: localUid) }

    public static func == (left: AgoraRtcConnection, right: AgoraRtcConnection) -> Bool { left === right }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// Channel and local uid as a value: how the engine tells its connections apart.
struct ConnectionKey: Hashable, Sendable {
    let channelId: String
    let localUid: UInt
}
