/// An instant of a clock that counts from its own start (a test's manual clock, a scaled clock).
public struct OffsetInstant: InstantProtocol, Hashable, Sendable {
    /// Time on the clock since it started.
    public var offset: Duration

    public init(offset: Duration) { self.offset = offset }
    public func advanced(by duration: Duration) -> OffsetInstant { OffsetInstant(offset: offset + duration) }
    public func duration(to other: OffsetInstant) -> Duration { other.offset - offset }
    public static func < (a: OffsetInstant, b: OffsetInstant) -> Bool { a.offset < b.offset }
}
