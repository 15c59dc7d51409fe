import SeededRandom

extension SplitMix64 {
    /// A duration uniformly between `low` and `high` seconds, to the millisecond.
    mutating func seconds(_ low: Double, _ high: Double) -> Duration {
        .milliseconds(Int64.random(in: Int64(low * 1000)...Int64(high * 1000), using: &self))
    }

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }
}
