import AccessToken
import Synchronization

/// The wall clock a call's tokens are made on, and so how a token's expiry falls on the call's clock: the one rule
/// for the engine and the session.
public enum TokenWall: Sendable {
    /// The call's own wall (`Simulation.unixTime`): a token expires when that wall reaches its expiry. Tokens made on
    /// the call's clock (the embedded server, at any speed), and every call on the real clock.
    case call
    /// A wall at real speed that the call's clock has left (an outside token server on a call that runs fast or
    /// pauses): a token is checked against that wall, and lives its lifetime — expiry minus issue time — of the call's
    /// time from when it first arrives (the same token again keeps that expiry: `arrivals`).
    case real(unixTime: @Sendable () -> Double, arrivals: TokenArrivals = TokenArrivals())

    /// Seconds since 1970 on the wall tokens are checked against, when the call's wall reads `callNow`.
    public func unixTime(call callNow: Double) -> Double {
        switch self {
        case .call: callNow
        case .real(let unixTime, _): unixTime()
        }
    }

    /// Where `time`, a time written in `token`, falls on the call's wall, for the token arriving when the call's wall
    /// reads `callNow`.
    public func callTime(of time: Int64, in token: AgoraToken, arrivingAt callNow: Double) -> Double {
        switch self {
        case .call: Double(time)
        case .real(_, let arrivals): arrivals.first(of: token, at: callNow) + Double(time - token.issuedAt)
        }
    }
}

/// When each token first arrived, on the call's wall: a server that hands out one token over and over does not give
/// it a new life each time. Keeps the latest `limit` tokens.
public final class TokenArrivals: Sendable {
    private struct Seen {
        var times: [[UInt8]: Double] = [:]
        var order: [[UInt8]] = []
        var dropped = 0
    }

    private let seen = Mutex(Seen())
    /// More tokens than a day of 10 s tokens.
    static let limit = 16_384

    public init() {}

    /// The call's wall time `token` first arrived at: `callNow` the first time (remembered), the same time after.
    func first(of token: AgoraToken, at callNow: Double) -> Double {
        let key = token.signatureBytes
        return seen.withLock { seen in
            if let first = seen.times[key] { return first }
            seen.times[key] = callNow
            seen.order.append(key)
            if seen.order.count - seen.dropped > Self.limit {
                seen.times[seen.order[seen.dropped]] = nil
                seen.dropped += 1
                if seen.dropped > Self.limit {
                    seen.order.removeFirst(seen.dropped)
                    seen.dropped = 0
                }
            }
            return callNow
        }
    }
}

extension AgoraToken {
    /// The signature, which differs between any two tokens a server makes (the salt and issue time are signed).
    fileprivate var signatureBytes: [UInt8] {
        switch self {
        case .accessToken2(let token): token.signature
        case .accessToken006(let token): token.signature
        }
    }
}
