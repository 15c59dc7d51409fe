import HubProtocol

/// What a connection may still do under a `HubRate` (a token bucket): full at first, one more each interval, never
/// more than the burst.
struct Allowance {
    let rate: HubRate
    private var left: Double
    private var countedAt: Double

    init(_ rate: HubRate, now: Double) {
        self.rate = rate
        left = Double(rate.burst)
        countedAt = now
    }

    /// Takes one when there is one left now; false when the rate is spent.
    mutating func take(now: Double) -> Bool {
        let interval = Double(rate.interval.components.seconds) + Double(rate.interval.components.attoseconds) / 1e18
        left = min(Double(rate.burst), left + max(0, now - countedAt) / interval)
        countedAt = now  // a wall clock set back refills nothing for the step, and freezes nothing after it
        guard left >= 1 else { return false }
        left -= 1
        return true
    }
}
