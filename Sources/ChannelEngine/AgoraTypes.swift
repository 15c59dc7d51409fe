/// Connection states, with Agora's numbers (`AgoraConnectionState`).
public enum AgoraConnectionState: Int, Sendable, CaseIterable {
    case disconnected = 1, connecting = 2, connected = 3, reconnecting = 4, failed = 5

    public var name: String { String(describing: self) }
}

/// Why the connection state changed, with Agora's numbers (`AgoraConnectionChangedReason`).
public enum AgoraConnectionChangedReason: Int, Sendable, CaseIterable {
    case connecting = 0, joinSuccess = 1, interrupted = 2, bannedByServer = 3, joinFailed = 4, leaveChannel = 5
    case invalidAppId = 6, invalidChannelName = 7, invalidToken = 8, tokenExpired = 9, rejectedByServer = 10
    case settingProxyServer = 11, renewToken = 12, clientIpAddressChanged = 13, keepAliveTimeout = 14
    case rejoinSuccess = 15, lost = 16, echoTest = 17, clientIpAddressChangedByUser = 18, sameUidLogin = 19
    case tooManyBroadcasters = 20, licenseValidationFailure = 21, certificationVerifyFailure = 22
    case streamChannelNotAvailable = 23, inconsistentAppId = 24

    public var name: String { String(describing: self) }
}

/// Error codes the engine reports, with Agora's numbers (`AgoraErrorCode`); methods return them negated.
public enum AgoraErrorCode: Int, Sendable, CaseIterable {
    case invalidArgument = 2
    case notReady = 3
    case notInitialized = 7
    case invalidState = 8
    case joinChannelRejected = 17
    case invalidAppId = 101
    case invalidChannelName = 102
    case tokenExpired = 109
    case invalidToken = 110
    case invalidUserId = 121

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

/// Options for joining or updating a channel (`AgoraRtcChannelMediaOptions`); nil leaves a setting as it is.
public struct AgoraRtcChannelMediaOptions: Sendable, Equatable {
    public var token: String?
    public var clientRoleType: AgoraClientRole?
    public var publishCameraTrack: Bool?
    public var autoSubscribeVideo: Bool?

    public init(token: String? = nil, clientRoleType: AgoraClientRole? = nil, publishCameraTrack: Bool? = nil,
                autoSubscribeVideo: Bool? = nil) {
        self.token = token
        self.clientRoleType = clientRoleType
        self.publishCameraTrack = publishCameraTrack
        self.autoSubscribeVideo = autoSubscribeVideo
    }
}

/// One channel connection of the multi-channel API (`AgoraRtcConnection`).
public struct AgoraRtcConnection: Sendable, Hashable, CustomStringConvertible {
    public var channelId: String
    public var localUid: UInt

    public init(channelId: String, localUid: UInt) {
        self.channelId = channelId
        self.localUid = localUid
    }

    public var description: String { "\(channelId)/\(localUid)" }
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
}
