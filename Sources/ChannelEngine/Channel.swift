import Timers

/// One local connection to a channel: the main one, or one of the multi-channel API. Reached under the engine's lock
/// only; a timer names it by `id`.
final class Channel {
    /// Which of the engine's connections this is: no two it made share one.
    let id: Int
    var connection: ConnectionKey
    /// The user account joined with, which the token must name instead of the uid.
    var account: String?
    var role: AgoraClientRole
    /// Called instead of the delegate's `didJoinChannel` when the join succeeds.
    var joinSuccess: AgoraRtcEngineKit.JoinSuccess?
    /// The delegate of a `joinChannelEx` connection; the main channel uses the engine's.
    weak var exDelegate: (any AgoraRtcEngineDelegate)?
    let isMain: Bool

    var state: AgoraConnectionState = .disconnected
    var reason: AgoraConnectionChangedReason = .reasonLeaveChannel
    /// The token the connection holds, and where its expiry falls on the engine's clock.
    var token: String?
    var tokenExpiresAt: Int64?
    var tokenExpiry: Duration?
    var tokenTimers: [TimerQueue.ID] = []
    /// Tokens that have had their `tokenPrivilegeWillExpire`.
    var warnedTokens: Set<String> = []
    /// The token a join in progress will present.
    var pendingToken: String?
    /// Whether that token came through `renewToken`, which owes a `renewTokenResult` when the join is answered.
    var pendingRenewResult = false
    var joinTimer: TimerQueue.ID?
    var joinWaitsForNetwork = false
    var joinStartedAt: Duration = .zero
    var linkTimers: [TimerQueue.ID] = []
    /// Remote users announced through `didJoinedOfUid` and not yet offline, in announcement order.
    var announced: UidList = []
    /// The video state last reported for each announced remote user.
    var remoteVideo: [UInt: AgoraVideoRemoteState] = [:]
    var videoTimers: [TimerQueue.ID] = []
    /// The network quality last reported for the local user (0) and each announced remote user.
    typealias Quality = (tx: AgoraNetworkQuality, rx: AgoraNetworkQuality)
    var quality: [UInt: Quality] = [:]

    var joinedAt: Duration?

    init(id: Int, connection: ConnectionKey, role: AgoraClientRole, isMain: Bool, exDelegate: (any AgoraRtcEngineDelegate)?) {
        self.id = id
        self.connection = connection
        self.role = role
        self.isMain = isMain
        self.exDelegate = exDelegate
    }

    /// In the channel, whether or not the link is up.
    var isInChannel: Bool { state == .connected || state == .reconnecting }
    /// Joined, joining or waiting to be renewed: anything but disconnected.
    var isActive: Bool { state != .disconnected }
    /// In a channel or joining one, as `updateChannel` requires: neither disconnected nor failed.
    var acceptsUpdates: Bool { state != .disconnected && state != .failed }

    var allTimers: [TimerQueue.ID] {
        tokenTimers + linkTimers + videoTimers + (joinTimer.map { [$0] } ?? [])
    }
}
