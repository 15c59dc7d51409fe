import AccessToken
import CallSession
import ChannelEngine
import Timers

/// Whether the screen shows a live call or plays a recording back; the keys it offers follow.
public enum ScreenMode: Sendable, Equatable {
    case call
    case replay(speed: Int, phase: ReplayPhase)

    public enum ReplayPhase: Sendable, Equatable {
        case playing, paused
        /// Every recorded event has been shown; the screen stays until a quit.
        case ended
    }

    var keys: KeyBinding.Mode {
        switch self {
        case .call: .call
        case .replay: .replay
        }
    }
}

/// Everything the call screen shows, as a value: updated by session events and the clock, drawn by
/// `ScreenRenderer`.
public struct ScreenState: Sendable, Equatable {
    /// How a log line is coloured.
    public enum Tone: Sendable, Equatable {
        case normal, good, warning, bad
    }

    public struct LogEntry: Sendable, Equatable {
        public var time: Duration
        public var name: String
        public var detail: String
        public var tone: Tone
    }

    /// A remote user's tile; `leftAt` is set once it went offline (shown as `left` for a moment).
    public struct RemoteTile: Sendable, Equatable {
        public var uid: UInt
        public var leftAt: Duration?
        /// The worse of their sending and receiving quality, as last reported; nil until it is.
        public var quality: AgoraNetworkQuality?
    }

    public var channel: String
    /// The local uid: the one joined with, or the one the engine assigned (0 until it has).
    public var uid: UInt
    /// The user account the call joins with; nil when it joins with a uid.
    public var account: String?
    public var role: AgoraClientRole
    public var tokenServer: String
    public var connection: AgoraConnectionState = .disconnected
    public var reason: AgoraConnectionChangedReason = .reasonLeaveChannel
    public var tokenExpiresAt: Int64?
    /// When the current token was accepted (unix), the start of its lifetime bar.
    public var tokenAcceptedAt: Int64?
    /// Seconds before expiry that the engine warns: the countdown turns yellow there.
    public var willExpireLead = Int64(AgoraTokenTiming.willExpireLead / .seconds(1))
    public var renewMethod: RenewMethod
    public var autoRenew: Bool
    public var lastFetchLatency: Duration?
    public var fetchCount = 0
    public var remotes: [RemoteTile] = []
    public var log: [LogEntry] = []
    public var showHelp = false
    /// Each token's life along the call's time; drawn in place of the video while `showTimeline` (`t`).
    public var timeline = TokenTimeline()
    public var showTimeline = false
    /// The field `p` opens to paste the next token.
    public var paste = PasteField.closed
    /// Whether the session said a token is needed (tokens pasted by hand), until a token is taken.
    public var tokenNeeded = false
    public var networkDown = false
    /// The local user's network quality (`networkQuality` for uid 0), and the remote user speaking loudest.
    public var localQuality: AgoraNetworkQuality?
    public var activeSpeaker: UInt?
    /// The mistake the embedded server's tokens carry on purpose; nil when they are right.
    public var mistake: TokenMistake?
    /// A live call, or a recording played back.
    public var mode = ScreenMode.call
    /// How fast the live call's clock runs against real time (`join --speed`, `<` and `>`), or that it is paused (space).
    public var clock = ClockPhase.running(speed: 1)
    /// The hub the channel is on (`join --hub`); nil without one.
    public var hub: HubStatus?

    /// A hub's address and whether the link to it is up.
    public struct HubStatus: Sendable, Equatable {
        public var address: String
        public var link: HubLinkState

        public init(address: String, link: HubLinkState = .connecting) {
            self.address = address
            self.link = link
        }
    }
    /// Unix time now, and time since the session started; moved by the app each frame.
    public var now: Double = 0
    public var sessionTime: Duration = .zero

    /// Moves the clocks to these times, in whole seconds: the screen shows time to the second, so a state that
    /// ticks this way stays equal (and its drawing can be kept) between one second and the next.
    public mutating func tick(unixTime: Double, sessionTime: Duration) {
        now = unixTime.rounded(.down)
        self.sessionTime = .seconds(sessionTime.components.seconds)
    }

    /// How long a `left` tile stays before the grid reflows.
    public static let leftTileLinger: Duration = .seconds(3)
    static let logLimit = 200

    public init(channel: String, uid: UInt, account: String? = nil, role: AgoraClientRole, tokenServer: String, renewMethod: RenewMethod,
                autoRenew: Bool) {
        self.channel = channel
        self.uid = uid
        self.account = account
        self.role = role
        self.tokenServer = tokenServer
        self.renewMethod = renewMethod
        self.autoRenew = autoRenew
    }

    /// Seconds until the token expires (negative once it has).
    public var secondsLeft: Int64? { tokenExpiresAt.map { $0 - Int64(now.rounded(.down)) } }

    /// Tiles still shown: present ones, and those that left moments ago.
    public var visibleRemotes: [RemoteTile] {
        remotes.filter { tile in tile.leftAt.map { sessionTime - $0 < Self.leftTileLinger } ?? true }
    }

    public mutating func apply(_ event: SessionEvent) {
        // The periodic reports change nothing the screen shows: the state stays equal, so its drawing is kept.
        guard !event.isPeriodic else { return }
        sessionTime = max(sessionTime, event.time)
        log(event)
        timeline.apply(event, unixNow: now)
        switch event.kind {
        case .engine(let callback): apply(callback, at: event.time)
        case .tokenFetchStarted: fetchCount += 1
        case .tokenFetched(let latency, _): lastFetchLatency = latency
        case .autoRenewChanged(let on): autoRenew = on
        case .renewMethodChanged(let method): renewMethod = method
        case .mistakeChanged(let kind): mistake = kind
        case .tokenNeeded: tokenNeeded = true
        default: break
        }
        remotes.removeAll { tile in tile.leftAt.map { sessionTime - $0 >= Self.leftTileLinger } ?? false }
    }

    /// Takes a key's command: while the help overlay is up any key but quit and resize only closes it, and `?` opens
    /// it. Returns what is left for the app to do, nil when nothing is.
    public mutating func press(_ command: KeyCommand) -> KeyCommand? {
        if showHelp, command != .quit, command != .resize {
            showHelp = false
            return nil
        }
        if command == .help { showHelp = true }
        if command == .paste { paste = .editing("") }
        if command == .timeline { showTimeline.toggle() }
        return command
    }

    private mutating func apply(_ callback: AgoraRtcEvent, at time: Duration) {
        switch callback {
        case .connectionStateChanged(let state, let why):
            connection = state
            reason = why
            if state == .disconnected || state == .failed {
                remotes = []
                localQuality = nil
                activeSpeaker = nil
                if state == .failed || why == .reasonLeaveChannel { tokenExpiresAt = nil; tokenAcceptedAt = nil }
            }
        case .didJoinChannel(_, let joined, _), .didLocalUserRegistered(_, let joined):
            uid = joined
        case .didJoinedOfUid(let remote, _):
            remotes.removeAll { $0.uid == remote }
            remotes.append(RemoteTile(uid: remote))
        case .didOfflineOfUid(let remote, _):
            if let index = remotes.firstIndex(where: { $0.uid == remote }) { remotes[index].leftAt = time }
            if activeSpeaker == remote { activeSpeaker = nil }
        case .networkQuality(let user, let tx, let rx):
            let quality = [tx, rx].filter { $0 != .unknown }.max { $0.rawValue < $1.rawValue }
            if user == 0 {
                localQuality = quality
            } else if let index = remotes.firstIndex(where: { $0.uid == user }) {
                remotes[index].quality = quality
            }
        case .activeSpeaker(let speaker):
            activeSpeaker = speaker
        case .didClientRoleChanged(_, let new, _):
            role = new
        case .simulatorNotice(.tokenAccepted(let expiresAt, _)):
            tokenExpiresAt = expiresAt
            tokenAcceptedAt = Int64(now.rounded(.down))
            tokenNeeded = false
        case .simulatorNotice(.network(let down)):
            networkDown = down
        case .simulatorNotice(.hubConnected):
            hub?.link = .connected
        case .simulatorNotice(.hubLost(let reason)):
            hub?.link = .lost(reason: reason)
        default:
            break
        }
    }

    /// Whether the event log shows an event: not what the tiles show (quality, the active speaker, whether video
    /// plays), so that the log keeps to the token and the connection.
    static func logs(_ event: SessionEvent) -> Bool {
        switch event.kind {
        case .engine(.networkQuality), .engine(.activeSpeaker), .engine(.remoteVideoStateChanged): false
        default: true
        }
    }

    private mutating func log(_ event: SessionEvent) {
        guard Self.logs(event) else { return }
        log.append(LogEntry(time: event.time, name: event.name, detail: event.noteText ?? event.detail, tone: Self.tone(of: event)))
        if log.count > Self.logLimit { log.removeFirst(log.count - Self.logLimit) }
    }

    static func tone(of event: SessionEvent) -> Tone {
        switch event.kind {
        case .tokenRenewed, .tokenFetched, .tokenPasted: return .good
        case .tokenNeeded: return .warning
        case .tokenFetchFailed, .stuck, .sessionEnded(failed: true): return .bad
        case .engine(let callback):
            switch callback {
            case .tokenPrivilegeWillExpire: return .warning
            case .requestToken, .didOccurError: return .bad
            case .renewTokenResult(_, let code): return code == .success ? .good : .bad
            case .connectionStateChanged(let state, _):
                switch state {
                case .connected: return .good
                case .failed: return .bad
                case .reconnecting, .connecting: return .warning
                case .disconnected: return .normal
                }
            default: return .normal
            }
        default: return .normal
        }
    }
}
