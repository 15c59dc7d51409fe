import HubProtocol

/// What a connection may still do under a `HubRate` (a token bucket): full at first, one more each interval, never
/// more than the burst.
struct Allowance {
    let rate: HubRate
    private var left: Double
    private var countedAt: Duration

    init(_ rate: HubRate, now: Duration) {
        self.rate = rate
        left = Double(rate.burst)
        countedAt = now
    }

    /// Takes one when there is one left now; false when the rate is spent.
    mutating func take(now: Duration) -> Bool {
        left = min(Double(rate.burst), left + (now - countedAt) / rate.interval)
        countedAt = now
        guard left >= 1 else { return false }
        left -= 1
        return true
    }
}
