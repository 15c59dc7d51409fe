import HubProtocol
import Timers

/// Where the engine's link to its hub stands, as a screen shows it.
public enum HubLinkState: Equatable, Sendable {
    /// Opening, not yet connected.
    case connecting
    case connected
    /// Broken (said why); the link is trying again.
    case lost(reason: String)

    /// The state in a word: `connecting`, `connected`, `lost`.
    public var name: String {
        switch self {
        case .connecting: "connecting"
        case .connected: "connected"
        case .lost: "lost"
        }
    }
}

/// What the engine knows of its hub (`Simulation.hub`), for the main connection only. Guarded by the engine's lock,
/// under which the link is called too, so requests reach it in the order the engine made them.
final class HubState {
    let link: any HubLink
    var linkState: HubLinkState = .connecting
    /// Where the main connection stands with the hub, as far as the engine has told it.
    enum Standing {
        /// In none of the hub's channels: not joined yet, refused, put out, left, or forgotten when the link broke.
        case out
        /// A join went: the hub has the connection in its channel, or is letting it in.
        case joined
        /// A join went to find out whether the hub kept the connection through a long silence.
        case probing
    }

    var standing = Standing.out
    /// Leaves sent and not answered: whatever the hub says before their answer is about the channel left.
    var leavesUnanswered = 0
    /// Renewals sent, in order; each `renewTokenResult` answers the first.
    var renewals: [(token: String, path: RenewalPath)] = []
    /// The broadcasters the hub says are in the main channel, in the order it named them, at most
    /// `AgoraRtcEngineKit.hubUserLimit`.
    var peers: UidList = []
    /// Whether the engine has said that the hub named more users than it shows, in this stay in the channel.
    var saidPastUserLimit = false
    /// The peers whose unreadable video the engine has noted, in this stay in the channel.
    var unreadableNoted: Set<UInt> = []
    /// The tokens the hub has warned about on this connection: a warning comes once per token.
    var warnedTokens: Set<String> = []
    /// The engine asked the link to drop the connection (`HubLink.drop`): what the hub says until the link reports the
    /// loss is not heard.
    var dropping = false
    /// The accounts of those of them who joined with one, for `didUserInfoUpdated`.
    var accounts: [UInt: String] = [:]
    /// The audio and video states of peers who told them (`userMedia`); a peer not here publishes `HubMedia.untold`.
    var media: [UInt: HubMedia] = [:]
    /// The local states the hub was last told (with `join` or `media`).
    var toldMedia: HubMedia?
    /// Peers the hub stopped naming without their leaving (dropped, or missing after the link broke and came back),
    /// kept announced for `HubSilence.limit` in case they are back: the timer that gives them up.
    var away: [UInt: TimerQueue.ID] = [:]
    /// The latest frame of each peer, and when it came on the engine's clock.
    var frames: [UInt: (frame: HubVideoFrame, at: Duration)] = [:]
    var freezeTimers: [UInt: TimerQueue.ID] = [:]
    /// The timer that sends the local user's video while in the channel.
    var videoTimer: TimerQueue.ID?

    init(link: any HubLink) {
        self.link = link
    }

    /// Forgets the channel: its people, their video, and the timers that follow them.
    func forgetChannel(timers: TimerQueue) {
        timers.cancel(freezeTimers.values)
        timers.cancel(away.values)
        away = [:]
        timers.cancel(videoTimer)
        freezeTimers = [:]
        videoTimer = nil
        peers = []
        accounts = [:]
        media = [:]
        frames = [:]
        saidPastUserLimit = false
        unreadableNoted = []
    }
}
