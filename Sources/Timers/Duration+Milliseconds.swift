extension Duration {
    /// Whole milliseconds, toward zero; exact at any length (`self / .milliseconds(1)` goes through a Double).
    public var wholeMilliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}

extension Duration {
    /// Seconds as a Double (for wall times, which are Doubles).
    public var secondsValue: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
