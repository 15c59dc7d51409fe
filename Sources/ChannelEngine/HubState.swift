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

/// What the engine knows of its hub (`Simulation.hub`), for the main connection only. Guarded by the engine's lock.
final class HubState {
    /// What goes to the link once the engine's lock is released: the link may call back into the engine while it
    /// holds its own lock, so the engine never calls the link while holding the engine's.
    enum Outgoing {
        case request(HubRequest)
        case video(HubVideoFrame)
        case silent(Bool)
    }

    let link: any HubLink
    var linkState: HubLinkState = .connecting
    var outbox: [Outgoing] = []
    /// Whether the hub has the main connection in its channel or joining it, as far as the engine has told it.
    var holdsUs = false
    /// Leaves sent and not answered: whatever the hub says before their answer is about the channel left.
    var leavesUnanswered = 0
    /// Set when the link came back after the hub may have dropped us: a `join` asks, and the hub's "already in
    /// channel" error answers that it kept us.
    var probing = false
    /// Renewals sent, in order; each `renewTokenResult` answers the first.
    var renewals: [(token: String, path: RenewalPath)] = []
    /// The broadcasters the hub says are in the main channel, in the order it named them.
    var peers: [UInt] = []
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
        timers.cancel(videoTimer)
        freezeTimers = [:]
        videoTimer = nil
        peers = []
        frames = [:]
        probing = false
    }

    /// Takes what is waiting to go to the link.
    func takeOutbox() -> [Outgoing] {
        defer { outbox = [] }
        return outbox
    }
}
