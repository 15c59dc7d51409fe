import CallSession

/// A recording's events on their way into a `ScreenState`: each applied once the replay's position reaches its time,
/// at the unix time it happened (the recording's start plus its time), as the live screen applied it.
public struct ReplayTrack: Sendable {
    public let events: [SessionEvent]
    /// Unix time when the recorded call started.
    public let started: Double
    private var next = 0

    public init(events: [SessionEvent], started: Double) {
        self.events = events
        self.started = started
    }

    /// The time of the next event to apply; nil once every event has been.
    public var nextTime: Duration? { next < events.count ? events[next].time : nil }

    /// The time of the last event: where the replay ends.
    public var end: Duration { events.last?.time ?? .zero }

    /// Unix time at `position` into the recording.
    public func unixTime(at position: Duration) -> Double {
        started + Double(position.components.seconds) + Double(position.components.attoseconds) / 1e18
    }

    /// Applies to `state` every event due by `position`; returns how many.
    @discardableResult
    public mutating func play(upTo position: Duration, into state: inout ScreenState) -> Int {
        let first = next
        while let time = nextTime, time <= position {
            state.now = unixTime(at: time)
            state.apply(events[next])
            next += 1
        }
        return next - first
    }
}
