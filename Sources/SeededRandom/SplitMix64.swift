/// SplitMix64: a small, fast generator whose whole sequence follows from its seed, so a simulated call, or a
/// randomized test, can be replayed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A generator for one purpose, independent of others drawn from the same seed.
    public init(seed: UInt64, stream: String) {
        state = seed ^ Self.fnv1a(stream)
    }

    public mutating func next() -> UInt64 {
        state &+= Self.golden
        return Self.finish(state)
    }

    /// The generator's output for `value` as a stateless hash: well mixed, the same on every run.
    public static func mix(_ value: UInt64) -> UInt64 { finish(value &+ golden) }

    public mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }

    /// 0..<bound, near enough uniform for test data.
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// One of `choices` (not empty).
    public mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }

    /// A stable hash of text (Swift's `Hasher` changes every run).
    public static func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }

    private static let golden: UInt64 = 0x9E37_79B9_7F4A_7C15

    private static func finish(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
