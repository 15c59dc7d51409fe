import AccessToken
import ChannelEngine
import Timers

extension CallSession {
    /// Whether a token fetch is under way.
    public var fetchingToken: Bool {
        if case .fetching = tokenPhase { true } else { false }
    }

    /// Fetches a fresh token now and hands it over with the current renew method (out of a failed call: joins again);
    /// not while the engine has yet to answer the last token (a join, or a rejoin's, under way).
    public func renewNow() {
        guard !ended else { return }
        if engine?.connectionState == .disconnected { return emit(.note("renew: not in a channel; press j to join")) }
        guard !fetchingToken else { return emit(.note("renew: a token fetch is already under way")) }
        guard pendingRenewal == nil, engine?.connectionState != .connecting else {
            return emit(.note("renew: the engine has not answered the last token yet; press n again once it has"))
        }
        fetch(for: .manual)
    }

    public func setAutoRenew(_ on: Bool) {
        autoRenew = on
        emit(.autoRenewChanged(on: on))
    }

    public func setRenewMethod(_ method: RenewMethod) {
        renewMethod = method
        emit(.renewMethodChanged(method))
    }

    /// Joins again after leaving (a fresh token first).
    public func join() {
        guard let engine else { return emit(.note("join: the first token has not arrived yet")) }
        guard engine.connectionState == .disconnected || engine.connectionState == .failed else {
            return emit(.note("join: already \(engine.connectionState.name); press l to leave first"))
        }
        if engine.connectionState == .failed { leaveChannel(engine) }
        guard !fetchingToken else { return emit(.note("join: a token fetch is already under way")) }
        fetch(for: .join)
    }

    public func leave() {
        guard let engine, engine.connectionState != .disconnected else { return emit(.note("leave: not in a channel")) }
        cancelPlannedFetch()
        leaveChannel(engine)
    }

    /// Leaves and joins again with a fresh token: remote users are dropped and announced again.
    public func rejoin() {
        guard let engine, engine.connectionState == .connected else { return emit(.note("rejoin: only while connected")) }
        guard !fetchingToken else { return emit(.note("rejoin: a token fetch is already under way")) }
        leaveChannel(engine)
        fetch(for: .rejoin)
    }

    /// Broadcaster ⇄ audience, from the role the engine holds. In a channel its `didClientRoleChanged` says when the
    /// role changed (through a hub, once the hub has made the change); out of one, the session says it.
    public func switchRole() {
        guard let engine else { return emit(.note("role: the engine is not up yet")) }
        let asked: AgoraClientRole = engine.clientRole == .broadcaster ? .audience : .broadcaster
        engine.setClientRole(asked)
        if engine.clientRole != asked {
            emit(.note("role: the hub is asked for \(asked.name); the change shows when it makes it"))
        } else if engine.connectionState != .connected, engine.connectionState != .reconnecting {
            emit(.roleChanged(asked))
        }
    }

    public func addRemoteUser() {
        guard let engine, let count = engine.simulatedRemoteUserCount else { return emit(.note("+: join a channel first")) }
        guard count < AgoraRtcEngineKit.remoteUserLimit else {
            return emit(.note("+: the channel already has \(count) remote users, the most it simulates"))
        }
        _ = engine.simulateRemoteUserJoin()
    }

    public func removeRemoteUser() {
        guard engine?.simulateRemoteUserLeave() != nil else { return emit(.note("-: no remote user to remove")) }
    }

    /// Cuts or restores the simulated network link.
    public func toggleNetwork() {
        guard let engine else { return emit(.note("network: the engine is not up yet")) }
        engine.simulateNetworkInterruption(!engine.isNetworkInterrupted)
    }

    /// Stops or starts the embedded token server (on the same port), to watch renewal fail and recover.
    public func toggleTokenServer() {
        guard let server = tokens.ownServer else {
            return emit(.note("server: only the embedded token server can be stopped here"))
        }
        do {
            emit(.note(try server.toggle() ? "embedded token server started again" : "embedded token server stopped"))
        } catch {
            emit(.note("embedded token server could not start again: \(error)"))
        }
    }

    /// Cycles the mistake the embedded token server makes on purpose: none, each kind in turn, none again.
    public func cycleMistake() {
        guard let mistakes = tokens.ownServer?.mistakes else {
            return emit(.note("misconfigure: only the embedded token server makes mistakes on purpose"))
        }
        setMistake(TokenMistake.cycled(after: mistakes.current()))
    }

    /// Makes the embedded token server's tokens carry `mistake` from its next on (nil: right again). Put right, a call
    /// that renews by itself fetches a right token at once (out of failed / tokenExpired: recovers).
    public func setMistake(_ mistake: TokenMistake?) {
        guard let mistakes = tokens.ownServer?.mistakes else {
            return emit(.note("misconfigure: only the embedded token server makes mistakes on purpose"))
        }
        mistakes.set(mistake)
        emit(.mistakeChanged(mistake))
        guard mistake == nil, autoRenew, !fetchingToken, let engine else { return }
        switch engine.connectionState {
        case .connected, .reconnecting: fetch(for: .manual)
        case .failed where engine.connectionChangedReason == .reasonTokenExpired: fetch(for: .requestToken)
        case .disconnected where Self.refused(.disconnected, engine.connectionChangedReason): emit(.note("press j to join again"))
        default: break
        }
    }

    /// How fast the call's clock runs, or that it is paused; nil for a call on the real clock.
    public var clockPhase: ClockPhase? { (configuration.clock as? ScaledClock)?.phase }

    /// Halves or doubles the speed of the call's clock, or pauses or resumes it (`<`, `>`, space), saying so: everything
    /// on it follows (the engine's and the session's timers, the embedded server's token times). Nil, saying why, for a
    /// call on the real clock.
    @discardableResult
    public func changeClock(_ change: ClockChange) -> ClockPhase? {
        guard let clock = configuration.clock as? ScaledClock else {
            say(configuration.hub != nil ? "time: a call on a hub runs in real time, as the people in it do"
                : "time: this call runs on the real clock, as its tokens come from outside it; start it with --speed N "
                + "(\(ClockPhase.speeds.lowerBound)...\(ClockPhase.speeds.upperBound)) "
                + "to change its speed")
            return nil
        }
        let phase = clock.perform(change)
        say(phase.isPaused ? "time: paused (at \(phase.speed)x)" : "time: \(phase.speed)x")
        return phase
    }

    /// Expires the current token now, whatever its expiry.
    public func expireNow() {
        guard let engine, engine.currentToken != nil else { return emit(.note("expire: no token in use")) }
        engine.simulateTokenExpiry()
    }
}

extension CallSession {
    /// Puts a line in the event stream (a key that does not apply, say).
    public func say(_ text: String) { emit(.note(text)) }
}
