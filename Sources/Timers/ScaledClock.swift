/// A clock that runs `speed` times as fast as a base clock, counted from when it was made, with a wall time that
/// moves with it: at 3600× a base second is an hour on this clock, so a 24 h token lives 24 s of the base clock.
public struct ScaledClock: Clock, Sendable {
    public typealias Instant = OffsetInstant

    /// The speeds a call runs at, as `join --speed` takes them.
    public static let speeds: ClosedRange<Int> = 1...3600

    /// How many times as fast as the base clock this one runs.
    public let speed: Int
    private let base: ElapsedClock
    private let unixOrigin: Double

    /// A clock at offset zero now, `speed` (within `speeds`) times as fast as `base`, whose wall time starts at `unixTime`.
    public init(speed: Int, base: some Clock<Duration> = ContinuousClock(), unixTime: Double) {
        self.speed = min(max(speed, Self.speeds.lowerBound), Self.speeds.upperBound)
        self.base = ElapsedClock(base)
        unixOrigin = unixTime
    }

    public var now: Instant { Instant(offset: base.now() * speed) }
    public var minimumResolution: Duration { .zero }

    /// Seconds since 1970 on this clock's wall: the start's, plus this clock's time since.
    public var unixTime: Double { unixOrigin + now.offset.secondsValue }

    /// Sleeps on the base clock until this clock reaches `deadline` (rounded up, so it has reached it on waking).
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        var baseDeadline = deadline.offset / speed
        if baseDeadline * speed < deadline.offset { baseDeadline += Duration(secondsComponent: 0, attosecondsComponent: 1) }
        try await base.sleep(baseDeadline)
    }
}
