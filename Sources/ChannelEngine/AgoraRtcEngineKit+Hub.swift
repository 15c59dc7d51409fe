import AccessToken
import HubProtocol
import Timers

/// The main connection through a hub (`Simulation.hub`, `Docs/hub-protocol.md`): the hub is the network's
/// authority — it checks tokens, says when they end, and names the other people in the channel — and the engine turns
/// what it says into the callbacks Agora's SDK gives. Multi-channel connections stay simulated.
extension AgoraRtcEngineKit {
    /// A hub user's video is frozen after this long without a frame.
    static let hubVideoFrozenAfter: Duration = .seconds(1)
    /// How often the local user's video goes to the hub, and a hub user's can change.
    public nonisolated static let hubVideoInterval: Duration = .seconds(1) / HubVideoFrame.maxPerSecond
    /// The most users of a hub's channel the engine announces (`HubPeer.announcedLimit`): those the hub names first (in
    /// `joined`, then as they join).
    public nonisolated static let hubUserLimit = HubPeer.announcedLimit
    /// The most callbacks that may wait for the main actor when the hub speaks: more, and the hub is sending faster
    /// than the app takes in, so the engine drops the link (`HubLink.drop`) rather than hold them all.
    public nonisolated static let hubBacklogLimit = 4096

    /// Where the link to the hub stands; nil without a hub.
    var hubLinkState: HubLinkState? { locked { hub?.linkState } }

    /// The main connection's remote users that are simulated, not people on the hub.
    var simulatedRemoteUids: [UInt] {
        locked { (main?.announced ?? []).filter { !isHubPeer($0) } }
    }

    /// The latest frame a hub user sent, while they are announced.
    func receivedVideo(forUid uid: UInt) -> HubVideoFrame? {
        locked { main?.announced.contains(uid) == true ? hub?.frames[uid]?.frame : nil }
    }

    func isHubPeer(_ uid: UInt) -> Bool {
        hub?.peers.contains(uid) ?? false
    }

    func usesHub(_ channel: Channel) -> Bool {
        channel.isMain && hub != nil
    }

    /// Opens the link; its events are handled under the lock, as an app's calls are.
    func openHub() {
        hub?.link.open { [weak self] event in
            guard let self else { return }
            self.call {
                self.receive(event)
                switch event {
                case .notice, .video, .unreadableVideo: self.limitBacklog()
                case .connected, .lost: break
                }
            }
        }
    }

    /// Drops the link when, after something the hub sent, more than `hubBacklogLimit` callbacks wait for the app: the
    /// queue the hub feeds stays bounded however fast it sends, and the link comes back after the usual backoff.
    private func limitBacklog() {
        guard let hub, !hub.dropping, queue.count > Self.hubBacklogLimit else { return }
        hub.dropping = true
        hub.link.drop("it sent faster than the app takes in: over \(Self.hubBacklogLimit) callbacks waiting")
    }

    // MARK: Requests

    /// Asks the hub to let the main connection in with its pending token (or the one it holds), once the link is up.
    func presentJoin(_ channel: Channel) {
        guard let hub, hub.linkState == .connected, networkDownSince == nil else { return }
        let user: RTCUser = channel.account.map(RTCUser.account) ?? .uid(UInt32(channel.connection.localUid))
        hub.link.send(.join(HubJoin(appId: appId, channel: channel.connection.channelId, user: user,
                                    token: channel.pendingToken ?? channel.token ?? "", role: role, media: localHubMedia)))
        hub.toldMedia = localHubMedia
        hub.standing = .joined
    }

    /// The local audio and video as the hub carries them: published unless switched off, muted for peers or sending.
    var localHubMedia: HubMedia {
        HubMedia(audio: !(audioEnabled && localAudioEnabled) ? .off : localAudioMuted ? .muted : .on,
                 video: !cameraOn ? .off : localVideoMuted ? .muted : .on)
    }

    /// Tells the hub the local states when they changed since it was last told, while it has us in the channel;
    /// otherwise the next join carries them.
    func tellHubMedia() {
        guard let hub, hub.standing == .joined, hub.linkState == .connected, networkDownSince == nil,
              hub.toldMedia != localHubMedia else { return }
        hub.link.send(.media(localHubMedia))
        hub.toldMedia = localHubMedia
    }

    /// Tells the hub the main connection is out of its channel, if the hub thinks it is in; while the network is cut
    /// the link holds the leave until it speaks again.
    func leaveHub() {
        guard let hub, hub.standing != .out else { return }
        hub.standing = .out
        hub.renewals = []
        guard hub.linkState == .connected else { return }
        hub.link.send(.leave)
        hub.leavesUnanswered += 1
    }

    /// A new token for the main connection: the hub checks it and answers with `renewTokenResult`. Out of the channel
    /// after its token ran out, the connection joins again with it.
    func renewThroughHub(_ channel: Channel, with token: String, via path: RenewalPath) {
        guard let hub else { return }
        switch channel.state {
        case .connecting where hub.standing == .out, .reconnecting where hub.standing == .out:
            // No join has gone to the hub yet: the join presents it, and its answer is the renewal's.
            channel.pendingToken = token
            channel.pendingRenewResult = path == .renewToken
        case .failed where channel.reason == .reasonTokenExpired:
            channel.pendingRenewResult = path == .renewToken
            channel.pendingToken = token
            channel.joinStartedAt = timers.now
            setState(.connecting, .reasonRenewToken, on: channel)
            presentJoin(channel)
        case .failed, .disconnected:
            if path == .renewToken { emit(.renewTokenResult(token: token, code: .failure), on: channel) }
        case .connecting, .connected, .reconnecting:
            guard hub.linkState == .connected, networkDownSince == nil else {
                if path == .renewToken { emit(.renewTokenResult(token: token, code: .failure), on: channel) }
                return
            }
            hub.link.send(.renew(token: token))
            hub.renewals.append((token, path))
        }
    }

    /// Asks the hub for a role; the change is reported when the hub makes it.
    func requestRole(_ role: AgoraClientRole, on channel: Channel) {
        guard let hub, channel.isInChannel, hub.linkState == .connected, networkDownSince == nil else { return }
        hub.link.send(.setRole(role))
    }

    // MARK: Events

    func receive(_ event: HubLinkEvent) {
        guard let hub else { return }
        switch event {
        case .connected:
            hub.linkState = .connected
            hub.leavesUnanswered = 0
            hub.standing = .out
            hub.dropping = false
            hub.warnedTokens = []
            emit(.simulatorNotice(.hubConnected), on: nil)
            if let main, main.state == .connecting || main.state == .reconnecting { presentJoin(main) }
        case .lost(let reason, let silence):
            hub.linkState = .lost(reason: reason)
            hub.standing = .out
            hub.dropping = false
            if let main, let last = hub.renewals.last {
                // Unanswered, the latest renewal is the token the join after the reconnect presents, and its answer.
                main.pendingToken = last.token
                main.pendingRenewResult = last.path == .renewToken
            }
            hub.renewals = []
            emit(.simulatorNotice(.hubLost(reason: reason)), on: nil)
            if let main, main.isInChannel { linkBroke(main, silentFor: silence) }
        case .notice(let notice):
            guard !hub.dropping else { return }
            guard hub.leavesUnanswered == 0 else {
                if Self.answersLeave(notice) { hub.leavesUnanswered -= 1 }
                return
            }
            guard let main, main.isActive else { return }
            handle(notice, on: main)
        case .video(let frame):
            guard !hub.dropping, hub.leavesUnanswered == 0, let main, main.isInChannel else { return }
            received(frame, on: main)
        case .unreadableVideo(let uid, let problem):
            // Said once per peer and stay: the peer's own frames, ten a second, are theirs to mend.
            guard !hub.dropping, hub.leavesUnanswered == 0, let main, main.isInChannel, hub.peers.contains(UInt(uid)),
                  hub.unreadableNoted.insert(UInt(uid)).inserted else { return }
            emit(.simulatorNotice(.hubVideoUnreadable(uid: UInt(uid), problem: problem)), on: main)
        }
    }

    /// The hub's answer to `leave`: out of the channel, or an error when it had put us out already.
    private static func answersLeave(_ notice: HubNotice) -> Bool {
        switch notice {
        case .connectionStateChanged(_, let reason, _): reason == .reasonLeaveChannel
        case .error: true
        default: false
        }
    }

    private func handle(_ notice: HubNotice, on main: Channel) {
        switch notice {
        case .joined(_, let uid, let role, let expiresAt, let users):
            guard main.state == .connecting || main.state == .reconnecting else { return }
            // Read before `joined` announces them; the users past the limit (one more: the local user may be named) are
            // not announced, so their accounts are not kept.
            hub?.accounts = Dictionary(users.prefix(Self.hubUserLimit + 1).compactMap { peer in
                peer.account.map { (UInt(peer.uid), $0) }
            }) { $1 }
            joined(main, uid: UInt(uid), role: role, expiresAt: expiresAt, users: users)
        case .userJoined(let peer):
            guard let hub, main.isInChannel, UInt(peer.uid) != main.connection.localUid else { return }
            if let giveUp = hub.away.removeValue(forKey: UInt(peer.uid)) {
                // Back within the grace: nothing to tell the app, as Agora tells nothing of a peer back within 20 s.
                timers.cancel(giveUp)
                hub.accounts[UInt(peer.uid)] = peer.account
                return
            }
            guard !hub.peers.contains(UInt(peer.uid)) else { return }
            guard hub.peers.count < Self.hubUserLimit else { return pastUserLimit(on: main) }
            hub.peers.append(UInt(peer.uid))
            hub.accounts[UInt(peer.uid)] = peer.account
            syncRemoteUsers(of: main)
        case .userOffline(let uid, let reason, let silence):
            let uid = UInt(uid)
            guard let hub, hub.peers.contains(uid) else { return }
            if reason == .dropped {
                // The peer's link broke or went silent: it may be back (on this hub or another) before Agora would
                // have given it up, 20 s after its last packet, of which the hub's silence has passed.
                if hub.away[uid] == nil { keepAway(uid, on: main, for: HubSilence.limit - silence) }
                return
            }
            timers.cancel(hub.away.removeValue(forKey: uid))
            hub.peers.remove(uid)
            hub.frames[uid] = nil
            hub.accounts[uid] = nil
            hub.media[uid] = nil
            timers.cancel(hub.freezeTimers.removeValue(forKey: uid))
            if main.announced.contains(uid), main.state == .connected {
                announceOffline(uid, reason: reason, on: main)
            }
        case .userMedia(let uid, let media):
            let uid = UInt(uid)
            guard let hub, hub.peers.contains(uid) else { return }
            let before = hub.media[uid] ?? .untold
            hub.media[uid] = media
            if main.announced.contains(uid), main.state == .connected { reportMedia(of: uid, from: before, to: media, on: main) }
        case .clientRoleChanged(_, let new):
            role = new
            changeRole(of: main, from: main.role, to: role, confirmed: true)
        case .tokenPrivilegeWillExpire:
            guard let hub, main.isInChannel, let token = main.token, hub.warnedTokens.insert(token).inserted else { return }
            emit(.tokenPrivilegeWillExpire(token: token), on: main)
        case .renewTokenResult(let result, let expiresAt):
            guard let hub, !hub.renewals.isEmpty else { return }
            let (token, path) = hub.renewals.removeFirst()
            let code = result
            // The answer, then the notice of the token taken: the order the engine keeps without a hub.
            if path == .renewToken { emit(.renewTokenResult(token: token, code: code), on: main) }
            if code == .success, let expiresAt { take(token, expiringAt: expiresAt, on: main) }
            if path == .updateChannel, code != .success {
                emit(.didOccurError(code == .tokenExpired ? .tokenExpired : .invalidToken), on: main)
            }
        case .connectionStateChanged(let state, let reason, let error):
            removed(main, state: state, reason: reason, error: error)
        case .error(let message):
            if let hub, hub.standing == .probing, main.state == .reconnecting {
                // The hub kept us through the silence: it refuses a second join.
                hub.standing = .joined
                rejoined(main)
            } else {
                emit(.simulatorNotice(.hubError(message)), on: main)
            }
        }
    }

    /// The hub let the main connection in: first join, a rejoin after its token ran out, or after the link broke.
    private func joined(_ main: Channel, uid: UInt, role hubRole: AgoraClientRole, expiresAt: Int64, users: [HubPeer]) {
        guard let hub else { return }
        let token = main.pendingToken ?? main.token
        let state = main.state, renewing = main.reason == .reasonRenewToken
        if main.connection.localUid == 0, main.account == nil { keptUid = uid }
        main.connection = ConnectionKey(channelId: main.connection.channelId, localUid: uid)
        main.role = hubRole
        main.pendingToken = nil
        hub.standing = .joined
        let before = hub.peers
        hub.peers = []
        var named = users.lazy.map { UInt($0.uid) }.filter { $0 != uid }.makeIterator()
        while hub.peers.count < Self.hubUserLimit, let peer = named.next() { hub.peers.append(peer) }
        let pastLimit = named.contains { !hub.peers.contains($0) }
        for peer in hub.peers { timers.cancel(hub.away.removeValue(forKey: peer)) }
        if state == .reconnecting {
            // Back after the link broke, perhaps on another hub, before the others: those not named yet are kept
            // for the grace rather than seen to leave and come back.
            for peer in before where !hub.peers.contains(peer) && main.announced.contains(peer) && hub.peers.count < Self.hubUserLimit {
                hub.peers.append(peer)
                if hub.away[peer] == nil { keepAway(peer, on: main) }
            }
        }
        if let token { take(token, expiringAt: expiresAt, on: main) }
        switch state {
        case .reconnecting:
            rejoined(main)
        case _ where renewing:
            setState(.connected, .reasonRejoinSuccess, on: main)
        default:
            setState(.connected, .reasonJoinSuccess, on: main)
            if main.joinedAt == nil { main.joinedAt = timers.now }
            if let account = main.account {
                accounts[account] = uid
                emit(.didLocalUserRegistered(account: account, uid: uid), on: main)
            }
            emit(.didJoinChannel(channel: main.connection.channelId, uid: uid,
                                 elapsed: elapsedMilliseconds(since: main.joinStartedAt)), on: main)
        }
        if main.pendingRenewResult, let token { emit(.renewTokenResult(token: token, code: .success), on: main) }
        main.pendingRenewResult = false
        attach(main)
        if pastLimit { pastUserLimit(on: main) }
        if role != main.role { requestRole(role, on: main) }
        sendVideo(on: main)
    }

    /// Keeps a peer the hub no longer names announced for `grace`; not back by then (or with no grace left), it is
    /// offline (`dropped`), as Agora gives up a user after `HubSilence.limit` without its packets.
    private func keepAway(_ uid: UInt, on main: Channel, for grace: Duration = HubSilence.limit) {
        guard grace > .zero else { return giveUp(uid, on: main) }
        hub?.away[uid] = timers.schedule(after: grace) { [weak self, id = main.id] in
            guard let self else { return }
            self.fire(on: id) { main in
                guard let hub = self.hub, hub.away.removeValue(forKey: uid) != nil else { return }
                self.giveUp(uid, on: main)
            }
        }
    }

    /// A peer the hub dropped is not back: offline (`dropped`).
    private func giveUp(_ uid: UInt, on main: Channel) {
        guard let hub, hub.peers.contains(uid) else { return }
        hub.peers.remove(uid)
        hub.frames[uid] = nil
        hub.accounts[uid] = nil
        hub.media[uid] = nil
        timers.cancel(hub.freezeTimers.removeValue(forKey: uid))
        if main.announced.contains(uid), main.state == .connected {
            announceOffline(uid, reason: .dropped, on: main)
        } else {
            syncRemoteUsers(of: main)
        }
    }

    /// The hub named more users than `hubUserLimit`: those past it are not announced (said once per stay).
    private func pastUserLimit(on main: Channel) {
        guard let hub, !hub.saidPastUserLimit else { return }
        hub.saidPastUserLimit = true
        emit(.simulatorNotice(.hubUsersPastLimit(Self.hubUserLimit)), on: main)
    }

    /// Back in the channel after the link broke: connected / rejoinSuccess, `didRejoinChannel`, and the users again.
    private func rejoined(_ main: Channel) {
        timers.cancel(main.linkTimers)
        main.linkTimers = []
        setState(.connected, .reasonRejoinSuccess, on: main)
        emit(.didRejoinChannel(channel: main.connection.channelId, uid: main.connection.localUid,
                               elapsed: elapsedMilliseconds(since: main.joinStartedAt)), on: main)
        syncRemoteUsers(of: main)
    }

    /// The hub put the main connection out, or refused to let it in: the callbacks the simulated engine gives for the
    /// same cause.
    private func removed(_ main: Channel, state: AgoraConnectionState, reason: AgoraConnectionChangedReason, error: AgoraErrorCode?) {
        guard reason != .reasonLeaveChannel else { return }
        hub?.standing = .out
        if reason == .reasonTokenExpired, main.isInChannel {
            // The token ran out in the channel, or it had by the time the link came back.
            expire(main)
            return
        }
        let token = main.pendingToken
        stopTimers(of: main)
        setState(state, reason, on: main)
        if let error { emit(.didOccurError(error), on: main) }
        if main.pendingRenewResult, let token {
            let rejection = TokenRejection.all.first { $0.state == state && $0.reason == reason && $0.error == error }
            emit(.renewTokenResult(token: token, code: rejection?.renewCode ?? .failure), on: main)
        }
        main.pendingToken = nil
        main.pendingRenewResult = false
        detach(main)
    }

    /// The link broke while in the channel: reconnecting / interrupted at once, then lost and failed as the simulated
    /// link's timers say, counted from when the hub fell silent, until the link is back and the hub lets the
    /// connection in again.
    private func linkBroke(_ main: Channel, silentFor silence: Duration) {
        if main.state == .connected {
            setState(.reconnecting, .reasonInterrupted, on: main)
            emit(.connectionInterrupted, on: main)
        }
        if main.linkTimers.isEmpty { scheduleLinkLoss(on: main, interruptedShown: true, passed: silence) }
    }

    /// The link is restored after `simulateNetworkInterruption`: under the hub's silence limit the hub kept us;
    /// past it, a join finds out (answered by `joined`, or by the hub's refusal of a second join when it kept us).
    /// Returns whether the connection is back at once.
    func hubNetworkRestored(_ main: Channel, after silence: Duration) -> Bool {
        guard let hub else { return true }
        switch main.state {
        case .connecting:
            presentJoin(main)
            return false
        case .reconnecting where hub.linkState != .connected:
            return false
        case .reconnecting where silence >= HubSilence.limit:
            presentJoin(main)
            hub.standing = .probing
            return false
        default:
            return true
        }
    }

    /// Makes `token` the main connection's, ending at `expiresAt` as the hub says; no local timers, the hub warns.
    private func take(_ token: String, expiringAt expiresAt: Int64, on main: Channel) {
        main.token = token
        main.tokenExpiresAt = expiresAt
        let left = Double(expiresAt) - config.simulation.unixTime()
        emit(.simulatorNotice(.tokenAccepted(expiresAt: expiresAt, short: left <= config.simulation.willExpireLead.secondsValue)),
             on: main)
    }

    /// A peer's published states changed: `remoteAudioStateChanged` and `remoteVideoStateChanged` as the SDK reports
    /// a remote user's mute (stopped / remoteMuted, decoding / remoteUnmuted) and first publishing (starting /
    /// internal; its audio decoding at once, its video at its first frame).
    func reportMedia(of uid: UInt, from before: HubMedia, to now: HubMedia, on main: Channel) {
        let elapsed = elapsedMilliseconds(since: main.joinStartedAt)
        switch (before.audio, now.audio) {
        case (.on, .muted), (.on, .off):
            emit(.remoteAudioStateChanged(uid: uid, state: .stopped, reason: .remoteMuted, elapsed: elapsed), on: main)
        case (.muted, .on):
            emit(.remoteAudioStateChanged(uid: uid, state: .decoding, reason: .remoteUnmuted, elapsed: elapsed), on: main)
        case (.off, .on):
            emit(.remoteAudioStateChanged(uid: uid, state: .starting, reason: .internal, elapsed: elapsed), on: main)
            emit(.remoteAudioStateChanged(uid: uid, state: .decoding, reason: .internal, elapsed: elapsed), on: main)
        default: break
        }
        switch (before.video, now.video) {
        case (.on, .muted), (.on, .off): setRemoteVideo(.stopped, .remoteMuted, of: uid, on: main)
        case (.muted, .on): setRemoteVideo(.decoding, .remoteUnmuted, of: uid, on: main)
        case (.off, .on): setRemoteVideo(.starting, .internal, of: uid, on: main)
        default: break
        }
    }

    // MARK: Video

    /// A hub user's frame: their first one is `firstRemoteVideoFrame` and decoding; after a freeze, decoding again.
    private func received(_ frame: HubVideoFrame, on main: Channel) {
        let uid = UInt(frame.uid)
        guard let hub, hub.peers.contains(uid) else { return }
        hub.frames[uid] = (frame, timers.now)
        if main.state == .connected {
            switch main.remoteVideo[uid] {
            case .starting:
                emitFirstFrame(of: uid, size: VideoSize(width: frame.columns, height: frame.rows), on: main)
                setRemoteVideo(.decoding, .internal, of: uid, on: main)
            case .frozen:
                setRemoteVideo(.decoding, .recovery, of: uid, on: main)
            default: break
            }
        }
        if hub.freezeTimers[uid] == nil { watchForFreeze(uid, on: main, from: timers.now) }
    }

    private func watchForFreeze(_ uid: UInt, on main: Channel, from last: Duration) {
        hub?.freezeTimers[uid] = timers.schedule(at: last + Self.hubVideoFrozenAfter) { [weak self, id = main.id] in
            guard let self else { return }
            self.fire(on: id) { main in
                guard let hub = self.hub, let latest = hub.frames[uid]?.at else { return }
                hub.freezeTimers[uid] = nil
                if latest + Self.hubVideoFrozenAfter > self.timers.now {
                    self.watchForFreeze(uid, on: main, from: latest)
                } else if main.state == .connected, main.remoteVideo[uid] == .decoding {
                    self.setRemoteVideo(.frozen, .congestion, of: uid, on: main)
                }
            }
        }
    }

    /// Sends the local user's picture to the hub every `hubVideoInterval` while in the channel, whenever it
    /// publishes (a broadcaster with video on) and the link is up.
    func sendVideo(on main: Channel) {
        guard let hub, main.isInChannel else { return }
        timers.cancel(hub.videoTimer)
        if main.state == .connected, hub.linkState == .connected, networkDownSince == nil, cameraOn, !localVideoMuted,
           main.role == .broadcaster {
            let picture = VideoFrameSource(uid: main.connection.localUid)
                .frame(at: timers.now, width: HubVideoFrame.sentColumns, height: HubVideoFrame.sentRows)
            let cells = picture.pixels.map { HubVideoFrame.Color(red: $0.red, green: $0.green, blue: $0.blue) }
            if let frame = HubVideoFrame(columns: picture.width, rows: picture.height, cells: cells) {
                hub.link.sendVideo(frame)
            }
        }
        hub.videoTimer = timers.schedule(after: Self.hubVideoInterval) { [weak self, id = main.id] in
            guard let self else { return }
            self.fire(on: id) { main in
                self.hub?.videoTimer = nil
                self.sendVideo(on: main)
            }
        }
    }
}
