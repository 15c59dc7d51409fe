import AccessToken

/// The wall clock a call's tokens are made on, and so how a token's expiry falls on the call's clock: the one rule
/// for the engine and the session.
public enum TokenWall: Sendable {
    /// The call's own wall (`Simulation.unixTime`): a token expires when that wall reaches its expiry. Tokens made on
    /// the call's clock (the embedded server, at any speed), and every call on the real clock.
    case call
    /// A wall at real speed that the call's clock has left (an outside token server on a call that runs fast or
    /// pauses): a token is checked against that wall, and lives its lifetime — expiry minus issue time — of the call's
    /// time from when it arrives.
    case real(unixTime: @Sendable () -> Double)

    /// Seconds since 1970 on the wall tokens are checked against, when the call's wall reads `callNow`.
    public func unixTime(call callNow: Double) -> Double {
        switch self {
        case .call: callNow
        case .real(let unixTime): unixTime()
        }
    }

    /// Where `time`, a time written in `token`, falls on the call's wall, for the token arriving when the call's wall
    /// reads `callNow`.
    public func callTime(of time: Int64, in token: AgoraToken, arrivingAt callNow: Double) -> Double {
        switch self {
        case .call: Double(time)
        case .real: callNow + Double(time - token.issuedAt)
        }
    }
}
