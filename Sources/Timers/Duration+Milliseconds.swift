/// Every conversion of a `Duration` to a number, in one place: the rest of the code reads these, never `components`.
extension Duration {
    /// Whole seconds, toward zero.
    public var wholeSeconds: Int64 { components.seconds }

    /// Whole seconds, any part of one counting as one ("retry in 1 s" for half a second).
    public var secondsRoundedUp: Int64 { components.seconds + (components.attoseconds > 0 ? 1 : 0) }

    /// Whole milliseconds, toward zero; exact at any length (`self / .milliseconds(1)` goes through a Double).
    public var wholeMilliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }

    /// Whole microseconds, toward zero.
    public var wholeMicroseconds: Int64 { components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000 }

    /// Seconds as a Double (for wall times, which are Doubles).
    public var secondsValue: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// Milliseconds as a Double (for latencies shown with a decimal).
    public var millisecondsValue: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}
