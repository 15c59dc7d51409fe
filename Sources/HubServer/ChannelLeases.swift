import Sockets

/// Who holds a channel, as the store of leases says.
public enum ChannelClaim: Equatable, Sendable {
    /// This hub holds it (it took it now, or held it already).
    case ours
    /// Another live hub holds it: its address (`ws://HOST:PORT/PATH`), where the channel's clients go.
    case elsewhere(String)
    /// The store did not answer, or not in time; why.
    case unknown(String)
}

/// One owner per channel across hubs (`serve --redis`): a lease a hub takes when a channel's first user joins,
/// renews while anyone is in it, and gives back when the channel empties or the hub stops. A dead hub's leases lapse
/// by themselves. Called on the hub's loop only, from `start` on, and never waited for: each answer comes later, on
/// the same loop, within the store's deadline.
public protocol ChannelLeases: AnyObject {
    /// How long a lease lives unrenewed; the hub renews at a third of it.
    var leaseDuration: Duration { get }
    /// The hub's loop, on which every call comes and every answer is given.
    func start(on loop: EventLoop)
    /// Takes the channel for this hub, or renews it when it is this hub's; or says who has it.
    func claim(_ channel: String, _ answer: @escaping (ChannelClaim) -> Void)
    /// Renews the channels; answers those that are no longer this hub's, or why the store did not answer.
    func renew(_ channels: [String], _ answer: @escaping (Result<[String], LeaseStoreError>) -> Void)
    /// Gives the channels back (best effort: a lease not given back lapses).
    func release(_ channels: [String])
    /// The hub is stopping: what was asked goes out and is answered, or given up once `limit` has passed, while the
    /// loop keeps turning; then `done`, on the loop (at once when nothing waits).
    func finish(within limit: Duration, then done: @escaping () -> Void)
}

/// Why the store of leases did not answer.
public struct LeaseStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
