import HubProtocol

/// The times a hub connection keeps (`Docs/hub-protocol.md`, "Clients"); tests shorten them.
public struct HubTiming: Sendable {
    /// Connecting and the opening handshake together, from the first try to the 101.
    public var connectTimeout: Duration = .seconds(5)
    /// A ping this often, well within the hub's `HubSilence.limit`.
    public var pingInterval: Duration = .seconds(5)
    /// Nothing at all from the hub for this long and it is taken for gone.
    public var silenceLimit = HubSilence.limit
    /// The wait before the first reconnect, doubled after each failure up to `longestBackoff`; each wait is
    /// drawn between half of it and all of it, so clients dropped together do not come back together.
    public var firstBackoff: Duration = .milliseconds(500)
    public var longestBackoff: Duration = .seconds(8)
    /// After a hub's close with 1001 (it is stopping), the next try comes within this long, drawn from all of it.
    public var promptReconnect: Duration = .milliseconds(50)

    public init() {}

    public static let standard = HubTiming()

    /// The wait before reconnecting after `failures` failures in a row (0 for the first), with `fraction` in 0.5...1.
    func backoff(after failures: Int, fraction: Double) -> Duration {
        var wait = firstBackoff
        for _ in 0..<min(failures, 16) where wait < longestBackoff { wait *= 2 }
        return min(wait, longestBackoff) * fraction
    }
}
