/// SplitMix64: a small, fast generator whose whole sequence follows from its seed.
struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// A generator for one purpose, independent of others drawn from the same seed.
    init(seed: UInt64, stream: String) {
        state = seed ^ Self.fnv1a(stream)
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A duration uniformly between `low` and `high` seconds, to the millisecond.
    mutating func seconds(_ low: Double, _ high: Double) -> Duration {
        .milliseconds(Int64.random(in: Int64(low * 1000)...Int64(high * 1000), using: &self))
    }

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }

    /// A stable hash (Swift's `Hasher` changes every run).
    static func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }
}
