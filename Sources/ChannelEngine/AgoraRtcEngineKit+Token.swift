import Timers

import AccessToken

/// A token the network accepted, placed on the engine's clock.
struct AcceptedToken {
    let token: String?
    /// Unix time it expires; nil for no token (testing mode).
    let expiresAt: Int64?
    /// Where that falls on the engine's clock.
    let expiry: Duration?
}

/// How a new token reached the engine, for the callbacks each path gets.
enum RenewalPath {
    case renewToken, updateChannel
}

extension AgoraRtcEngineKit {
    /// Replaces the main connection's token. Returns 0, or -2 for an empty token; the outcome comes in
    /// `renewTokenResult`, once the network has checked the token (while connecting: when the join is answered).
    /// From failed/tokenExpired it rejoins: connecting/renewToken, then connected.
    @discardableResult
    public func renewToken(_ token: String) -> Int32 {
        guard !token.isEmpty else { return -Int32(AgoraErrorCode.invalidArgument.rawValue) }
        return call {
            if let main, main.isActive {
                renew(main, with: token, via: .renewToken)
            } else {
                emit(.renewTokenResult(token: token, code: .failure), on: main)
            }
            return 0
        }
    }

    /// Updates the main connection's options; a token in them renews like `renewToken`, without
    /// `renewTokenResult`. Returns 0, or -8 when not in a channel (disconnected or failed).
    @discardableResult
    public func updateChannel(with mediaOptions: AgoraRtcChannelMediaOptions) -> Int32 {
        call {
            guard let main, main.acceptsUpdates else { return -Int32(AgoraErrorCode.invalidState.rawValue) }
            return update(main, with: mediaOptions)
        }
    }

    func update(_ channel: Channel, with options: AgoraRtcChannelMediaOptions) -> Int32 {
        let latency = channel.isMain ? options.latencyIfSet : nil
        if options.roleIfSet != nil || latency != nil {
            let newRole = options.roleIfSet ?? channel.role
            let latencyChanged = latency.map { $0 != latencyLevel } ?? false
            if channel.isMain {
                role = newRole
                if let latency { latencyLevel = latency }
            }
            changeRole(of: channel, from: channel.role, to: newRole, latency: latency, latencyChanged: latencyChanged)
        }
        if let token = options.token {
            guard !token.isEmpty else { return -Int32(AgoraErrorCode.invalidArgument.rawValue) }
            renew(channel, with: token, via: .updateChannel)
        }
        return 0
    }

    func renew(_ channel: Channel, with token: String, via path: RenewalPath) {
        if usesHub(channel) { return renewThroughHub(channel, with: token, via: path) }
        if channel.state == .connecting {
            channel.pendingToken = token
            channel.pendingRenewResult = path == .renewToken
            return
        }
        let expiredOut = channel.state == .failed && channel.reason == .reasonTokenExpired
        if channel.state == .failed && !expiredOut {
            if path == .renewToken { emit(.renewTokenResult(token: token, code: .failure), on: channel) }
            return
        }
        switch evaluate(token, for: channel) {
        case .failure(let rejection):
            switch path {
            case .renewToken: emit(.renewTokenResult(token: token, code: rejection.renewCode), on: channel)
            case .updateChannel: emit(.didOccurError(rejection.error), on: channel)
            }
        case .success where expiredOut:
            // Answered when the join is, as through a hub: connected / rejoinSuccess, then renewTokenResult.
            channel.pendingRenewResult = path == .renewToken
            beginJoin(channel, token: token, rejoining: true)
        case .success(let accepted):
            if path == .renewToken { emit(.renewTokenResult(token: token, code: .success), on: channel) }
            install(accepted, on: channel)
        }
    }

    /// Checks a token with `TokenRejection.check` (the rules the hub applies too) against the wall it was made on, and
    /// places its expiry on the engine's clock (`TokenWall`).
    func evaluate(_ token: String?, for channel: Channel) -> Result<AcceptedToken, TokenRejection> {
        let certificate = config.simulation.appCertificate
        let unixNow = config.simulation.unixTime()
        let wall = config.simulation.tokenWall
        let user = channel.account.map(RTCUser.account) ?? .uid(UInt32(channel.connection.localUid))
        let parsed: AgoraToken
        switch TokenRejection.check(token, appId: appId, appCertificate: certificate, channel: channel.connection.channelId,
                                    user: user, unixNow: wall.unixTime(call: unixNow)) {
        case .failure(let rejection): return .failure(rejection)
        case .success(nil): return .success(AcceptedToken(token: nil, expiresAt: nil, expiry: nil))
        case .success(let accepted?): parsed = accepted
        }
        if certificate == nil, !saidSignatureNotChecked {
            saidSignatureNotChecked = true
            emit(.simulatorNotice(.signatureNotChecked), on: channel)
        }
        let end = wall.callTime(of: parsed.joinDeadline, in: parsed, arrivingAt: unixNow)
        // A token from another wall that has run out of the call's time since it first arrived is expired here.
        guard end > unixNow else { return .failure(.expired) }
        let expiry = timers.now + .milliseconds(Int64(((end - unixNow) * 1000).rounded()))
        return .success(AcceptedToken(token: token, expiresAt: Int64(end.rounded(.down)), expiry: expiry))
    }

    /// Makes `accepted` the connection's token: cancels the old token's timers and sets will-expire and
    /// expiry for the new one. With the lead or less left, will-expire fires at once (the notice says `short`); it fires
    /// once per token, so a token presented again after its warning does not warn again, and is not flagged short.
    func install(_ accepted: AcceptedToken, on channel: Channel) {
        timers.cancel(channel.tokenTimers)
        channel.tokenTimers = []
        channel.token = accepted.token
        channel.tokenExpiresAt = accepted.expiresAt
        channel.tokenExpiry = accepted.expiry
        guard let token = accepted.token, let expiresAt = accepted.expiresAt, let expiry = accepted.expiry else { return }
        let warnAt = expiry - config.simulation.willExpireLead
        let short = warnAt <= timers.now && !channel.warnedTokens.contains(token)
        emit(.simulatorNotice(.tokenAccepted(expiresAt: expiresAt, short: short)), on: channel)
        if short {
            warn(channel, token)
        } else if !channel.warnedTokens.contains(token) {
            // Held: a busy main actor does not let a fast call's clock run past the warning before the app hears it.
            channel.tokenTimers.append(timers.schedule(at: warnAt, holdingClock: true) { [weak self, id = channel.id] in
                self?.fire(on: id) { self?.warn($0, token) }
            })
        }
        channel.tokenTimers.append(timers.schedule(at: expiry) { [weak self, id = channel.id] in
            self?.fire(on: id) { self?.expire($0) }
        })
    }

    private func warn(_ channel: Channel, _ token: String) {
        guard channel.warnedTokens.insert(token).inserted else { return }
        emit(.tokenPrivilegeWillExpire(token: token), on: channel)
    }

    /// The token ran out: `requestToken`, then failed / tokenExpired, out of the channel.
    func expire(_ channel: Channel) {
        guard channel.isActive, channel.token != nil else { return }
        let wasIn = channel.isInChannel
        stopTimers(of: channel)
        emit(.requestToken, on: channel)
        setState(.failed, .reasonTokenExpired, on: channel)
        detach(channel)
        if wasIn { emit(.simulatorNotice(.localUserOfflineForPeers(.quit)), on: channel) }
    }

    /// Expires the main connection's token now, whatever its expiry, as a demo of `requestToken`.
    public func simulateTokenExpiry() {
        call { if let main { expire(main) } }
    }
}
