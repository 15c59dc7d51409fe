import AccessToken
import CallSession
import ChannelEngine
import Timers
import TokenClient

/// Whether the screen shows a live call or plays a recording back; the keys it offers follow.
public enum ScreenMode: Sendable, Equatable {
    case call
    /// A recording played back; `ended` once every recorded event has been shown (the screen stays until a quit).
    case replay(ended: Bool)

    var keys: KeyBinding.Mode {
        switch self {
        case .call: .call
        case .replay: .replay
        }
    }
}

/// Everything the call screen shows, as a value: changed only by `update(_:)` (keys, events, the clocks, the size), drawn
/// by `ScreenRenderer`.
public struct ScreenState: Sendable, Equatable {
    /// How a log line is coloured.
    public enum Tone: Sendable, Equatable {
        case normal, good, warning, bad
    }

    /// A remote user's tile; `leftAt` is set once it went offline (shown as `left` for a moment).
    public struct RemoteTile: Sendable, Equatable {
        public var uid: UInt
        public var leftAt: Duration?
        /// The worse of their sending and receiving quality, as last reported; nil until it is.
        public var quality: AgoraNetworkQuality?
    }

    /// The call's settings as they stand: the uid once the engine assigned one, the role, method and auto-renew as changed.
    public private(set) var call: CallSettings
    public private(set) var connection: AgoraConnectionState = .disconnected
    public private(set) var reason: AgoraConnectionChangedReason = .reasonLeaveChannel
    public private(set) var tokenExpiresAt: Int64?
    /// When the current token was accepted (unix), the start of its lifetime bar.
    public private(set) var tokenAcceptedAt: Int64?
    /// Seconds before expiry that the engine warns: the countdown turns yellow there.
    public var willExpireLead: Int64 { AgoraTokenTiming.willExpireLeadSeconds }
    public private(set) var lastFetchLatency: Duration?
    public private(set) var fetchCount = 0
    public private(set) var remotes: [RemoteTile] = []
    /// What happened, a line each, as a person reads it (`EventLog`).
    public private(set) var log: EventLog
    /// The SDK whose words the screen speaks (`--sdk`).
    public var voice: SDKVoice { call.voice }
    public private(set) var showHelp = false
    /// Each token's life along the call's time; drawn in place of the video while `showTimeline` (`t`).
    public private(set) var timeline = TokenTimeline()
    public private(set) var showTimeline = false
    /// The field `p` opens to paste the next token.
    public private(set) var paste = PasteField.closed
    /// Whether the session said a token is needed (tokens pasted by hand), until a token is taken.
    public private(set) var tokenNeeded = false
    public private(set) var networkDown = false
    /// The local user's network quality (`networkQuality` for uid 0), and the remote user speaking loudest.
    public private(set) var localQuality: AgoraNetworkQuality?
    public private(set) var activeSpeaker: UInt?
    /// The mistake the embedded server's tokens carry on purpose; nil when they are right.
    public private(set) var mistake: TokenMistake?
    /// A live call, or a recording played back.
    public private(set) var mode = ScreenMode.call
    /// How fast the screen's clock (the call's or the replay's) runs against real time (`--speed`, `<` and `>`), or that
    /// it is paused (space).
    public private(set) var clock = ClockPhase.running(speed: 1)
    /// The hub the channel is on (`join --hub`); nil without one.
    public private(set) var hub: HubStatus?

    /// A hub's address and whether the link to it is up.
    public struct HubStatus: Sendable, Equatable {
        public var address: String
        public var link: HubLinkState

        public init(address: String, link: HubLinkState = .connecting) {
            self.address = address
            self.link = link
        }
    }
    /// Unix time now on the call's wall, and time since the session started: moved by each event and tick.
    public private(set) var now: Double = 0
    public private(set) var sessionTime: Duration = .zero
    /// Unix time now on the wall tokens are checked against (`TokenWall`), which a pasted token is read at.
    public private(set) var tokenNow: Double = 0
    /// The terminal's size in cells (or the picture's), which the screen is drawn at.
    public private(set) var size = ScreenSize(width: 80, height: 24)

    /// How long a `left` tile stays before the grid reflows.
    public static let leftTileLinger: Duration = .seconds(3)
    static let logLimit = 200

    public init(call: CallSettings, mode: ScreenMode = .call, clock: ClockPhase = .running(speed: 1), hub: HubStatus? = nil) {
        log = EventLog(voice: call.voice)
        self.mode = mode
        self.clock = clock
        self.hub = hub
        self.call = call
    }

    /// Seconds until the token expires (negative once it has).
    public var secondsLeft: Int64? { tokenExpiresAt.map { EventLog.seconds(from: Int64(now.rounded(.down)), to: $0) } }

    /// Tiles still shown: present ones, and those that left moments ago.
    public var visibleRemotes: [RemoteTile] {
        remotes.filter { tile in tile.leftAt.map { sessionTime - $0 < Self.leftTileLinger } ?? true }
    }

    /// Takes a message, the one way the model changes; returns what the runner is to do for it.
    public mutating func update(_ message: ScreenMessage) -> [ScreenEffect] {
        switch message {
        case .key(let key):
            return press(key)
        case .event(let event, let unixTime):
            // The periodic reports change nothing the screen shows: the state stays equal, so its drawing is kept.
            guard !event.isPeriodic else { return [] }
            now = unixTime
            apply(event)
        case .tick(let time):
            // In whole seconds: the screen shows time to the second, so a state that ticks this way stays equal (and
            // its drawing can be kept) between one second and the next.
            now = time.unixTime.rounded(.down)
            tokenNow = time.tokenUnixTime.rounded(.down)
            sessionTime = .seconds(time.sessionTime.wholeSeconds)
            clock = time.clock
        case .resize(let width, let height):
            size = ScreenSize(width: width, height: height)
        case .recordingEnded:
            if case .replay = mode { mode = .replay(ended: true) }
        }
        return []
    }

    private mutating func apply(_ event: SessionEvent) {
        sessionTime = max(sessionTime, event.time)
        log.take(event, tokenExpiresAt: tokenExpiresAt, unixNow: now)
        timeline.apply(event, unixNow: now)
        switch event.kind {
        case .engine(let callback): apply(callback, at: event.time)
        case .tokenFetchStarted: fetchCount += 1
        case .tokenFetched(let latency, _): lastFetchLatency = latency
        case .autoRenewChanged(let on): call.autoRenew = on
        case .renewMethodChanged(let method): call.renewMethod = method
        case .mistakeChanged(let kind): mistake = kind
        case .roleChanged(let new): call.role = new
        case .tokenNeeded: tokenNeeded = true
        default: break
        }
        remotes.removeAll { tile in tile.leftAt.map { sessionTime - $0 >= Self.leftTileLinger } ?? false }
    }

    /// A key goes into the paste field while it is open, else does what `KeyBinding.all` says; while the help overlay is
    /// up any key but quit only closes it. A key that does nothing says so in a call's log; a replay's log is the
    /// recorded call's.
    private mutating func press(_ key: Key) -> [ScreenEffect] {
        guard paste == .closed else {
            switch paste.take(key) {
            case .submitted(let text):
                do throws(PastedTokenError) {
                    let token = try PastedToken(text, unixTime: tokenNow)
                    paste = .closed
                    return [.paste(token)]
                } catch {
                    paste = .refused(text, why: error.description)
                    return []
                }
            case .quit: return [.quit]
            case .edited, .cancelled: return []
            }
        }
        let command = KeyCommand(key: key, in: mode.keys)
        if showHelp, command != .quit {
            showHelp = false
            return []
        }
        switch command {
        case .help: showHelp = true
        case .paste: paste = .editing("")
        case .timeline: showTimeline.toggle()
        case .session(let command): return [.session(command)]
        case .clock(let change): return [.clock(change)]
        case .quit: return [.quit]
        case .unknown(let name): return mode == .call ? [.session(.say("key \(name) does nothing; press ? for the keys"))] : []
        }
        return []
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
            call.uid = joined
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
            call.role = new
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
}
