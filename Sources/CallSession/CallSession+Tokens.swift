import AccessToken
import ChannelEngine
import Timers
import TokenClient

/// Why a token is being fetched.
enum FetchReason: String {
    case join, willExpire, requestToken, manual, rejoin
}

/// Where the session is with fetching tokens: one phase at a time.
enum TokenPhase {
    /// No fetch under way or planned.
    case idle
    /// A fetch for this reason is under way (until its answer is handed over, or its retry planned).
    case fetching(FetchReason)
    /// A fetch planned for when the timer (of that queue) fires: the retry after a failure, or the halfway renewal of a
    /// token that lives less than the warning lead.
    case planned(FetchReason, timer: TimerQueue.ID, on: TimerQueue)
}

extension CallSession {
    /// Fetches a token for `reason` (one fetch at a time) and hands it to the engine; on failure says when
    /// it tries again, and does while the token is still needed.
    func fetch(for reason: FetchReason) {
        guard !ended, !fetchingToken else { return }
        switch tokens {
        case .server(let source, let first?) where reason == .join:
            tokens = .server(source, first: nil)
            return use(first, for: .join)
        case .byHand(let latest):
            return askByHand(for: reason, latest: latest)
        case .server:
            break
        }
        guard let cache else { return }
        cancelPlannedFetch()
        tokenPhase = .fetching(reason)
        fetchCount += 1
        emit(.tokenFetchStarted(reason: reason.rawValue))
        let started = timers.now
        // Every token the call asks for must be newer than the one it has: the server is asked, never the cache.
        // The exchange counts at 1× on a fast call's clock, until its token is handed over or its retry planned.
        let hold = (configuration.clock as? ScaledClock).map { $0.hold(from: $0.now) }
        Task(executorPreference: MainQueueExecutor.shared) { [self] in
            await exchange(for: reason, with: cache, started: started, hold: hold)
        }
    }

    /// Waits for the fresh token `fetch` asked for and hands it over, or plans the retry.
    private func exchange(for reason: FetchReason, with cache: TokenCache, started: Duration, hold: ClockHold?) async {
        defer { hold?.release() }
        do {
            let fetched = try await cache.freshToken()
            tokenPhase = .idle
            answeredFetchCount += 1
            lastFetchLatency = timers.now - started
            if let parsed = try? AgoraToken(parsing: fetched.token) { configuration.tokenWall.fetched(parsed, at: configuration.unixTime(), by: self) }
            emit(.tokenFetched(latency: timers.now - started, expiresAt: callTime(of: fetched.expiresAt, in: fetched.token)))
            if let path = fetched.redirectedTo {
                emit(.note("the token server redirected the request to \(path) on the same origin; a token endpoint that redirects "
                           + "is suspicious, point --token-url at the final endpoint"))
            }
            if let flaw = fetched.flaw {
                emit(.note("\(flaw); handed to the engine anyway, as an app that does not check its tokens would"))
            }
            deliver(fetched.token, for: reason, forewarned: fetched.flaw != nil)
        } catch {
            let retryIn = await cache.retryDelay()
            tokenPhase = .idle
            let clientError = error as? TokenClientError
            let retrying = clientError?.isRetryable ?? true
            if clientError?.isAnswer == true { answeredFetchCount += 1 }
            let words = clientError.map { "\($0)" } ?? "\(error)"
            emit(.tokenFetchFailed(error: words, retryIn: retrying ? retryIn ?? .zero : nil))
            guard !ended else { return }
            // Only a person can mend what is not retried (a refusal, a request the shape cannot carry): say which.
            guard retrying else { return emit(.stuck(reason: "\(words); nothing will retry")) }
            plan(reason, after: retryIn ?? .zero, on: networkTimers)
        }
    }

    /// Fetches when `delay` has passed on `queue` (the call's timers, or the network's), for what a token is needed for
    /// then (`need(after:)`).
    func plan(_ reason: FetchReason, after delay: Duration, on queue: TimerQueue) {
        cancelPlannedFetch()
        let timer = queue.schedule(at: queue.now + max(delay, .zero), holdingClock: true) { [weak self] in
            guard let self else { return }
            tokenPhase = .idle
            if let need = need(after: reason) { fetch(for: need) }
        }
        tokenPhase = .planned(reason, timer: timer, on: queue)
    }

    /// Drops a planned fetch (a fetch under way goes on).
    func cancelPlannedFetch() {
        guard case .planned(_, let timer, let queue) = tokenPhase else { return }
        queue.cancel(timer)
        tokenPhase = .idle
    }

    /// What a token is wanted for when a retry or a timer comes due: `reason` while it still applies, recovery once
    /// the token in use has expired (whatever the fetch was for: the call needs a token now), or nothing.
    func need(after reason: FetchReason) -> FetchReason? {
        guard !ended else { return nil }
        guard let engine else { return reason == .join ? .join : nil }
        let state = engine.connectionState
        if state == .failed, engine.connectionChangedReason == .reasonTokenExpired { return .requestToken }
        switch reason {
        case .join, .rejoin: return state == .disconnected || state == .failed ? reason : nil
        case .willExpire, .manual: return state == .connected || state == .reconnecting ? reason : nil
        case .requestToken: return nil
        }
    }

    /// Hands a fetched token to the engine as `reason` asks; `forewarned`: a note has said why it will be refused.
    func deliver(_ token: String, for reason: FetchReason, forewarned: Bool = false) {
        guard !ended else { return }
        if engine == nil {
            guard let appID = appID ?? (try? AgoraToken(parsing: token))?.appID else { return }
            if self.appID == nil { emit(.note("App ID \(appID) taken from the first token")) }
            self.appID = appID
        }
        let engine = makeEngine(appID: appID!)
        delivered = (token, forewarned)
        switch reason {
        case .join, .rejoin:
            join(engine, with: token, renewing: reason == .rejoin ? .rejoin : nil)
        case .willExpire, .manual, .requestToken:
            switch engine.connectionState {
            case .disconnected:
                join(engine, with: token, renewing: nil)
            case .failed where engine.connectionChangedReason != .reasonTokenExpired:
                leaveChannel(engine)
                join(engine, with: token, renewing: nil)
            default:
                if reason == .willExpire, token == engine.currentToken {
                    emit(.note("the token server sent the token already in use; renewing with it does not move its expiry"))
                }
                renew(engine, with: token, method: renewMethod)
            }
        }
    }

    private func join(_ engine: AgoraRtcEngineKit, with token: String, renewing method: RenewMethod?) {
        pendingRenewal = method.map { ($0, token, false) }
        // The role goes in with the join, as the guide's apps set it: the first join takes the configured one.
        let role = engine.connection == nil ? configuration.role : engine.clientRole
        let options = AgoraRtcChannelMediaOptions(clientRoleType: role)
        let code = switch configuration.user {
        case .uid(let uid): engine.joinChannel(byToken: token, channelId: configuration.channel, uid: UInt(uid), mediaOptions: options)
        case .account(let account):
            engine.joinChannel(byToken: token, channelId: configuration.channel, userAccount: account, mediaOptions: options)
        }
        if code != 0 { emit(.note("joinChannel returned \(code)")) }
    }

    /// Hands `token` to the engine the way `method` says; the outcome is the engine's answer, whenever it comes
    /// (`renewalTaken`, `rejected`): at once in the simulation; through a hub, when the hub has checked the token.
    private func renew(_ engine: AgoraRtcEngineKit, with token: String, method: RenewMethod) {
        if method == .rejoin {
            leaveChannel(engine)
            return join(engine, with: token, renewing: .rejoin)
        }
        // updateChannel refuses a failed connection (-8); renewToken brings an expired one back.
        let viaRenewToken = method == .renew || engine.connectionState == .failed
        let code = viaRenewToken ? engine.renewToken(token) : engine.updateChannel(with: AgoraRtcChannelMediaOptions(token: token))
        guard code == 0 else { return rejected(token) }
        pendingRenewal = (method, token, viaRenewToken)
    }

    /// The engine has `pendingRenewal`'s token, in a connection that is not joining: the renewal is done. Called at each
    /// of the engine's answers that can mean it (`byResult` for `renewTokenResult`, which a renewal through
    /// `renewToken` waits for): the `tokenAccepted` notice, connected again.
    func renewalTaken(byResult: Bool = false) {
        guard let pending = pendingRenewal, byResult || !pending.viaRenewToken, let engine, engine.currentToken == pending.token,
              engine.connectionState != .connecting else { return }
        pendingRenewal = nil
        emit(.tokenRenewed(method: pending.method))
    }

    /// The engine refused `token`: a renewal under way with it is over.
    func rejected(_ token: String) {
        if pendingRenewal?.token == token { pendingRenewal = nil }
    }

    /// The user a token must name: the one configured, or for uid 0 the uid the engine gave, which its later joins keep.
    var userInUse: RTCUser {
        guard case .uid(0) = configuration.user, let given = engine?.connection?.localUid, given != 0,
              let uid = UInt32(exactly: given) else { return configuration.user }
        return .uid(uid)
    }

    /// Why the engine refused `token`, when that is that it names another user than the call joins as (Agora answers
    /// only 110, invalid token) and no note said so before: nil when another check fails first, as that is the cause.
    func userMismatch(in token: String?) -> String? {
        guard let token, let parsed = try? AgoraToken(parsing: token) else { return nil }
        if let delivered, delivered.token == token, delivered.forewarned { return nil }
        let check = TokenCheck(appID: appID, appCertificate: certificate, channel: configuration.channel, user: userInUse)
        do throws(TokenError) {
            try parsed.validate(check, now: Int64(configuration.tokenUnixTime().rounded(.down)))
        } catch {
            switch error {
            case .uidMismatch, .crcMismatch(field: "uid"): return error.description
            default: return nil
            }
        }
        return nil
    }
}

extension CallSession {
    /// Whether the call waits for the token server: a request under way, or its retry planned on the network's clock.
    /// `tokencall test --speed max` lets the call's time stand still meanwhile.
    public var waitsForTokenServer: Bool {
        switch tokenPhase {
        case .idle: false
        case .fetching: true
        case .planned(_, _, let queue): queue !== timers
        }
    }
}
