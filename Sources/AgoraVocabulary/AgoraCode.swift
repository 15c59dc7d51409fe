/// One of Agora's numbered enums whose values the wire, the headless lines and recordings name: each value has
/// its number (`rawValue`) and its name as Agora's docs write it (`name`).
public protocol AgoraCode: RawRepresentable<Int>, CaseIterable, Sendable, Equatable {
    var name: String { get }
}

extension AgoraCode {
    /// The value's Swift name, which is Agora's unless the type says otherwise.
    public var name: String { String(describing: self) }

    /// The value `name` names; nil for a name that is none of this enum's.
    public init?(name: String) {
        guard let value = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = value
    }

    /// Every value as `name (number)`, for an error that says what is allowed.
    public static var namesAndNumbers: String {
        allCases.map { "\($0.name) (\($0.rawValue))" }.joined(separator: ", ")
    }
}

/// Connection states, with Agora's numbers (`AgoraConnectionState`).
public enum AgoraConnectionState: Int, AgoraCode {
    case disconnected = 1, connecting = 2, connected = 3, reconnecting = 4, failed = 5
}

/// Why the connection state changed (`AgoraConnectionChangedReason`): the iOS header's cases as Swift imports
/// them (`AgoraConnectionReasonTokenExpired` is `.reasonTokenExpired`) and its numbers, which stop at 22.
public enum AgoraConnectionChangedReason: Int, AgoraCode {
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
public enum AgoraErrorCode: Int, AgoraCode {
    case invalidArgument = 2
    case notReady = 3
    case notSupported = 4
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
}

/// The outcome of `renewToken(_:)` (`AgoraRenewTokenErrorCode`, SDK 4.6+).
public enum AgoraRenewTokenErrorCode: Int, AgoraCode {
    case success = 0, failure = 1, tokenExpired = 2, invalidToken = 3, invalidChannelName = 4
    case inconsistentAppId = 5, canceledByNewRequest = 6
}

/// Why a remote user went offline (`AgoraUserOfflineReason`).
public enum AgoraUserOfflineReason: Int, AgoraCode {
    case quit = 0, dropped = 1, becomeAudience = 2
}

/// A user's role in a live broadcast (`AgoraClientRole`).
public enum AgoraClientRole: Int, AgoraCode {
    case broadcaster = 1, audience = 2
}
