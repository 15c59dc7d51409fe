/// Connection states, with Agora's numbers (`AgoraConnectionState`).
public enum AgoraConnectionState: Int, Sendable, CaseIterable {
    case disconnected = 1, connecting = 2, connected = 3, reconnecting = 4, failed = 5

    public var name: String { String(describing: self) }
}

/// Why the connection state changed (`AgoraConnectionChangedReason`): the iOS header's cases as Swift imports
/// them (`AgoraConnectionReasonTokenExpired` is `.reasonTokenExpired`) and its numbers, which stop at 22.
public enum AgoraConnectionChangedReason: Int, Sendable, CaseIterable {
    case reasonConnecting = 0, reasonJoinSuccess = 1, reasonInterrupted = 2, reasonBannedByServer = 3
    case reasonJoinFailed = 4, reasonLeaveChannel = 5, reasonInvalidAppId = 6, reasonInvalidChannelName = 7
    case reasonInvalidToken = 8, reasonTokenExpired = 9, reasonRejectedByServer = 10, reasonSettingProxyServer = 11
    case reasonRenewToken = 12, reasonClientIpAddressChanged = 13, reasonKeepAliveTimeout = 14
    case reasonRejoinSuccess = 15, reasonLost = 16, reasonEchoTest = 17
    case clientIpAddressChangedByUser = 18, sameUidLogin = 19, tooManyBroadcasters = 20
    case licenseValidationFailure = 21, certificationVerifyFailure = 22

    /// The reason as Agora's docs name it and the headless lines print it: `tokenExpired`, without Swift's prefix.
    public var name: String {
        let swiftName = String(describing: self)
        guard swiftName.hasPrefix("reason") else { return swiftName }
        let rest = swiftName.dropFirst("reason".count)
        return rest.prefix(1).lowercased() + rest.dropFirst()
    }
}

/// Error codes the engine reports, as Swift imports `AgoraErrorCode` (`.invalidChannelId` is 102); methods return
/// them negated.
public enum AgoraErrorCode: Int, Sendable, CaseIterable {
    case invalidArgument = 2
    case notReady = 3
    case notInitialized = 7
    case invalidState = 8
    case joinChannelRejected = 17
    case leaveChannelRejected = 18
    case invalidAppId = 101
    case invalidChannelId = 102
    case tokenExpired = 109
    case invalidToken = 110
    case invalidUserId = 121
    case clientIsBannedByServer = 123
    case invalidUserAccount = 134

    public var name: String { String(describing: self) }
}

/// The outcome of `renewToken(_:)` (`AgoraRenewTokenErrorCode`, SDK 4.6+).
public enum AgoraRenewTokenErrorCode: Int, Sendable, CaseIterable {
    case success = 0, failure = 1, tokenExpired = 2, invalidToken = 3, invalidChannelName = 4
    case inconsistentAppId = 5, canceledByNewRequest = 6

    public var name: String { String(describing: self) }
}

/// Why a remote user went offline (`AgoraUserOfflineReason`).
public enum AgoraUserOfflineReason: Int, Sendable, CaseIterable {
    case quit = 0, dropped = 1, becomeAudience = 2

    public var name: String { String(describing: self) }
}

/// A user's role in a live broadcast (`AgoraClientRole`).
public enum AgoraClientRole: Int, Sendable, CaseIterable {
    case broadcaster = 1, audience = 2

    public var name: String { String(describing: self) }
}

/// The channel profile (`AgoraChannelProfile`).
public enum AgoraChannelProfile: Int, Sendable {
    case communication = 0, liveBroadcasting = 1
}

/// Extra settings of a role change (`AgoraClientRoleOptions`); the simulator keeps them but nothing depends on them.
public final class AgoraClientRoleOptions {
    public var audienceLatencyLevel: AgoraAudienceLatencyLevelType = .ultraLowLatency

    public init() {}
}

/// An audience member's latency level (`AgoraAudienceLatencyLevelType`).
public enum AgoraAudienceLatencyLevelType: Int, Sendable {
    case lowLatency = 1, ultraLowLatency = 2
}

/// A video size in pixels.
public struct VideoSize: Sendable, Equatable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// What the simulator says that Agora's SDK does not: its own observations, marked as such.
public enum SimulatorNotice: Sendable, Equatable {
    /// The engine knows no App Certificate, so token signatures are not checked (said once).
    case signatureNotChecked
    /// A token was accepted; it expires at `expiresAt` (unix), `short` when 30 s or less remained.
    case tokenAccepted(expiresAt: Int64, short: Bool)
    /// Remote users now see the local user offline for this reason.
    case localUserOfflineForPeers(AgoraUserOfflineReason)
    /// The link was cut (`down`) or restored by a fault injection.
    case network(down: Bool)
    /// The link to the hub is open (again: the engine joins its channel anew).
    case hubConnected
    /// The link to the hub broke, for this reason; it is trying again.
    case hubLost(reason: String)
    /// The hub could not read or do what the engine sent it (its `error` message).
    case hubError(String)
    /// A hub user's video frame did not read (why, in words): dropped, and noted once per user and stay.
    case hubVideoUnreadable(uid: UInt, problem: String)
    /// The hub named more users than the engine announces (`AgoraRtcEngineKit.hubUserLimit`, given): those past it
    /// are not announced. Noted once per stay.
    case hubUsersPastLimit(Int)
}

/// A user's network quality as `networkQuality` reports it (`AgoraNetworkQuality`): 0 unknown … 6 down.
public enum AgoraNetworkQuality: Int, Sendable, CaseIterable {
    case unknown = 0, excellent = 1, good = 2, poor = 3, bad = 4, vBad = 5, down = 6

    public var name: String { String(describing: self) }
}

/// A remote user's video as `remoteVideoStateChangedOfUid` reports it (`AgoraVideoRemoteState`).
public enum AgoraVideoRemoteState: Int, Sendable, CaseIterable {
    case stopped = 0, starting = 1, decoding = 2, frozen = 3, failed = 4

    public var name: String { String(describing: self) }
}

/// Why a remote user's video state changed (`AgoraVideoRemoteReason`); the cases the simulator gives.
public enum AgoraVideoRemoteReason: Int, Sendable, CaseIterable {
    case `internal` = 0, congestion = 1, recovery = 2, remoteOffline = 7

    public var name: String { String(describing: self) }
}
