import ChannelEngine
import TokenClient

extension CallSession {
    /// Whether tokens are pasted by hand (no server to fetch from).
    var tokensByHand: Bool {
        if case .byHand = tokens { true } else { false }
    }

    /// Hands a pasted token to the engine with the current renew method (out of the channel: joins with it); from
    /// then on it is the token a by-hand call joins again with.
    public func paste(_ token: PastedToken) {
        guard !ended else { return }
        guard !fetchingToken else { return emit(.note("paste: a token fetch is under way; paste again once it ends")) }
        cancelPlannedFetch()
        if case .byHand = tokens { tokens = .byHand(latest: token) }
        let connected = engine.map { $0.connectionState != .disconnected } ?? false
        use(token, for: connected ? .manual : .join)
    }

    /// Hands a pasted token over for `reason`, saying first when the network will refuse it: another App ID,
    /// channel or uid is handed over all the same, so that the SDK's own answer shows.
    func use(_ token: PastedToken, for reason: FetchReason) {
        emit(.tokenPasted(expiresAt: callTime(of: token.expiresAt, in: token.token)))
        var request = tokenRequest
        request.user = userInUse
        let mismatch = token.mismatch(with: request, unixTime: configuration.tokenUnixTime())
        if let mismatch { emit(.note("the pasted token will be refused: \(mismatch); handing it to the SDK to show its answer")) }
        deliver(token.token, for: reason, forewarned: mismatch != nil)
    }

    /// With no server there is nothing to fetch: a join takes the last pasted token while it lasts; otherwise the
    /// session says a token is needed, and once the one in use has run out that nothing more happens without one.
    func askByHand(for reason: FetchReason, latest: PastedToken) {
        let now = Int64(configuration.tokenUnixTime().rounded(.down))
        switch reason {
        case .join where latest.expiresAt > now, .rejoin where latest.expiresAt > now:
            use(latest, for: reason)
        case .manual:
            emit(.note("renew: there is no token server; paste the next token (p on the call screen)"))
        case .join, .rejoin, .willExpire:
            let callNow = Int64(configuration.unixTime().rounded(.down))
            emit(.tokenNeeded(secondsLeft: max(0, (engine?.tokenExpiresAt ?? callNow) - callNow)))
        case .requestToken:
            emit(.tokenNeeded(secondsLeft: 0))
            emit(.stuck(reason: "the token expired and tokens are pasted by hand; paste a new one to go on"))
        }
    }
}
