/// How often one connection may do something at a hub: `burst` at once, then one more each `interval`; what goes
/// over it is not done (`Docs/hub-protocol.md`, "Limits and close codes"). A connection keeps its allowances from
/// its opening to its end, whatever it joins and leaves in between.
public struct HubRate: Equatable, Sendable {
    public let burst: Int
    public let interval: Duration

    public init(burst: Int, interval: Duration) {
        self.burst = burst
        self.interval = interval
    }

    /// Video frames forwarded: `HubVideoFrame.maxPerSecond` a second, bursts of as many; more are dropped.
    public static let video = HubRate(burst: HubVideoFrame.maxPerSecond, interval: .seconds(1) / HubVideoFrame.maxPerSecond)
    /// Text messages of every kind (a request or not); more are answered with `error` and not done.
    public static let messages = HubRate(burst: 20, interval: .milliseconds(100))
    /// Joins and role changes, which every other member of the channel hears of; more are answered with `error`.
    public static let presence = HubRate(burst: 5, interval: .seconds(2))
    /// Audio and video state changes (`media`), which every other member hears of too; more are answered with `error`.
    public static let media = HubRate(burst: 10, interval: .milliseconds(500))
}
