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

    /// Records `token` as fetched from the server by `fetcher` (a call) when the call's wall reads `callNow`
    /// (`TokenArrivals.fetched`).
    public func fetched(_ token: AgoraToken, at callNow: Double, by fetcher: AnyObject) {
        guard case .real(let unixTime, let arrivals) = self else { return }
        arrivals.fetched(token, at: callNow, realNow: unixTime(), by: ObjectIdentifier(fetcher))
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
        /// The token the server handed out last to each call that fetches (two people's calls share a wall).
        var lastFetched: [ObjectIdentifier: [UInt8]] = [:]
    }

    private let seen = Mutex(Seen())
    /// More tokens than a day of 10 s tokens.
    static let limit = 16_384

    public init() {}

    /// Records a token the server handed out to `fetcher` at `callNow`, the real wall reading `realNow`. The same bytes
    /// again are the same token, which keeps its first arrival, unless the fetcher got other tokens between and it was
    /// issued within the last two real seconds: a server building thousands of tokens a second draws the same salt (one
    /// of 99,999,999) for two of them now and then, and that copy is a new token, made now.
    func fetched(_ token: AgoraToken, at callNow: Double, realNow: Double, by fetcher: ObjectIdentifier) {
        let key = token.signatureBytes
        seen.withLock { seen in
            defer { seen.lastFetched[fetcher] = key }
            guard seen.times[key] != nil, seen.lastFetched[fetcher] != key, realNow - Double(token.issuedAt) < 2 else { return }
            seen.times[key] = callNow
        }
    }

    /// The call's wall time `token` first arrived at: `callNow` the first time (remembered), the same time after.
    func first(of token: AgoraToken, at callNow: Double) -> Double {
        let key = token.signatureBytes
        return seen.withLock { seen in
            if let first = seen.times[key] { return first }
            Self.remember(key, at: callNow, in: &seen)
            return callNow
        }
    }

    private static func remember(_ key: [UInt8], at callNow: Double, in seen: inout Seen) {
        seen.times[key] = callNow
        seen.order.append(key)
        guard seen.order.count - seen.dropped > limit else { return }
        seen.times[seen.order[seen.dropped]] = nil
        seen.dropped += 1
        if seen.dropped > limit {
            seen.order.removeFirst(seen.dropped)
            seen.dropped = 0
        }
    }
}

extension AgoraToken {
    /// The signature, which differs between two tokens a server makes (the salt and issue time are signed), unless the
    /// two drew the same salt in the same second (`TokenArrivals.fetched`).
    fileprivate var signatureBytes: [UInt8] {
        switch self {
        case .accessToken2(let token): token.signature
        case .accessToken006(let token): token.signature
        }
    }
}
