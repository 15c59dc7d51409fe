/// What a client's connection to a hub tells its user, in order.
public enum HubLinkEvent: Equatable, Sendable {
    /// The WebSocket is open — again, after `lost`: the hub has forgotten whatever this client was in.
    case connected
    case notice(HubNotice)
    /// A frame of another user's video, stamped with its uid by the hub.
    case video(HubVideoFrame)
    /// A frame from another user (`uid`, as the hub stamped it) whose cells the format does not allow, said why: that
    /// user's content, dropped; the link stays up, for one user's frames never break it.
    case unreadableVideo(uid: UInt32, problem: String)
    /// The connection broke, could not be made, or the hub sent what the protocol does not allow (said in `reason`);
    /// the link tries again by itself until it is closed. `silence` is how long nothing had come from the hub, when
    /// that is why.
    case lost(reason: String, silence: Duration = .zero)
}

/// How long a user is silent (no packet, no frame, not even a ping) before Agora drops it for the others: the
/// simulated peers and cut link, the hub for a client it hears nothing from, and a client for such a hub, all count it.
public enum HubSilence {
    public static let limit: Duration = .seconds(20)
}

/// What a client puts in the hub's URL for a balancer to route by (`Docs/hub-protocol.md`, "Connecting").
public enum HubRoute {
    /// The characters a channel name may hold to travel as `?channel=NAME` unescaped, as a balancer hashes it and the
    /// hub refuses it escaped; a name with any other goes without the parameter.
    public static let characters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$(),;:@"
}

/// The hub's own WebSocket close codes (`Docs/hub-protocol.md`, "Limits and close codes"), beside RFC 6455's 1001
/// for a hub that is stopping (reconnect at once).
public enum HubCloseCode {
    /// The channel lives on another hub: the close reason is that hub's address, `ws://HOST:PORT/PATH`, to connect to
    /// at once with the same query.
    public static let redirect: UInt16 = 4302
    /// The hub cannot tell who owns the channel now (its store of leases did not answer): try again after a while.
    public static let ownershipUnknown: UInt16 = 4503
}

/// A client's connection to a hub (`Docs/hub-protocol.md`): requests and video out, events in. The engine's seam to
/// the hub — `HubClient` makes real ones over TCP, tests make their own. Its methods return without calling `events`,
/// so the engine calls them under the lock its events take.
public protocol HubLink: AnyObject, Sendable {
    /// Starts connecting; events arrive on `events`, one at a time, in order.
    func open(events: @escaping @Sendable (HubLinkEvent) -> Void)
    /// Sends a request; dropped while not connected (the user sends again after `connected`).
    func send(_ request: HubRequest)
    /// Sends one video frame; dropped while not connected, or when frames are waiting to go already.
    func sendVideo(_ frame: HubVideoFrame)
    /// While true nothing is sent or read, not even pings, as when the network is cut: the hub drops a client
    /// silent for `HubSilence.limit`. Set back to false, the link reads what waited, or finds the connection gone
    /// and reconnects.
    func setSilent(_ silent: Bool)
    /// Closes the connection for good: a close frame when connected, no reconnecting, no more events.
    func close()
    /// Ends the connection as one the hub broke (it sends more than its user can take, or what a channel cannot hold):
    /// a close frame with 1008 and `reason`, then `lost` with it, and a reconnect as after any loss. Nothing happens
    /// when the link is not connected (a `lost` came already).
    func drop(_ reason: String)
}
