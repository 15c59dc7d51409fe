import Timers

extension AgoraRtcEngineKit {
    /// Adds a remote user to the main channel now; returns its uid, or nil when not joined or at `remoteUserLimit`.
    public func simulateRemoteUserJoin() -> UInt? {
        call {
            guard let main, main.isActive else { return nil }
            guard world(for: main).peers.count < Self.remoteUserLimit else { return nil }
            return world(for: main).add()
        }
    }

    /// The most remote users a simulated channel holds (as `--remote-users` allows).
    public nonisolated static let remoteUserLimit = 16

    /// How many remote users the main channel has (present or on their way); nil when not joined.
    public var simulatedRemoteUserCount: Int? {
        locked {
            guard let main, main.isActive else { return nil }
            return world(for: main).peers.count
        }
    }

    /// Makes a remote user of the main channel quit (the latest one when `uid` is nil); returns its uid.
    public func simulateRemoteUserLeave(_ uid: UInt? = nil) -> UInt? {
        call {
            guard let main else { return nil }
            return world(for: main).remove(uid)
        }
    }

    func world(for channel: Channel) -> RemoteUsers {
        let id = channel.connection.channelId
        if let world = worlds[id] {
            world.liveBroadcasting = profile == .liveBroadcasting
            return world
        }
        let world = RemoteUsers(
            channel: id, seed: config.simulation.seed, count: config.simulation.remoteUsers,
            churn: config.simulation.peerChurn, liveBroadcasting: profile == .liveBroadcasting, engine: self)
        worlds[id] = world
        return world
    }

    /// The connection is in: follow its channel's remote users from now on.
    func attach(_ channel: Channel) {
        let world = world(for: channel)
        world.observe(ObjectIdentifier(channel)) { [weak self, weak channel] in
            guard let self, let channel else { return }
            self.call { self.syncRemoteUsers(of: channel) }
        }
        world.start()
        syncRemoteUsers(of: channel)
    }

    /// The connection is out: it hears nothing more, and forgets whom it saw (Agora sends no offline
    /// callbacks for users you leave behind). A hub that still has it in its channel is told.
    func detach(_ channel: Channel) {
        if usesHub(channel) {
            leaveHub()
            hub?.forgetChannel(timers: timers)
        }
        worlds[channel.connection.channelId]?.stopObserving(ObjectIdentifier(channel))
        timers.cancel(channel.videoTimers)
        channel.videoTimers = []
        channel.announced = []
        channel.remoteVideo = [:]
    }

    /// Brings what the connection has announced in line with who is visible, simulated or on the hub:
    /// `didJoinedOfUid` (then the first video frame) for newcomers, `didOfflineOfUid` for those gone. Nothing
    /// arrives while the link is down. A hub user's first frame comes when the hub forwards it. Linear in the users:
    /// every look-up is in a set.
    func syncRemoteUsers(of channel: Channel) {
        guard channel.state == .connected, networkDownSince == nil else { return }
        let world = world(for: channel)
        let hubPeers: UidList = usesHub(channel) ? hub?.peers ?? [] : []
        let simulated = world.visible.filter { !hubPeers.contains($0.uid) }
        let visible = Set(simulated.map(\.uid)).union(hubPeers)
        for uid in channel.announced where !visible.contains(uid) {
            announceOffline(uid, reason: world.peer(uid)?.offlineReason ?? .quit, on: channel)
        }
        for uid in hubPeers where !channel.announced.contains(uid) {
            channel.announced.append(uid)
            emit(.didJoinedOfUid(uid, elapsed: elapsedMilliseconds(since: channel.joinStartedAt)), on: channel)
            // The SDK learns the account of a user who joined with one and says so (`didUserInfoUpdatedWithUserId`).
            if let account = hub?.accounts[uid] { emit(.didUserInfoUpdated(uid: uid, account: account), on: channel) }
            setRemoteVideo(.starting, .internal, of: uid, on: channel)
            if let media = hub?.media[uid] { reportMedia(of: uid, from: .untold, to: media, on: channel) }
        }
        for peer in channel.announced.filter({ !hubPeers.contains($0) }).compactMap(world.peer) {
            switch (peer.silentSince, channel.remoteVideo[peer.uid]) {
            case (.some, .decoding): setRemoteVideo(.frozen, .congestion, of: peer.uid, on: channel)
            case (nil, .frozen): setRemoteVideo(.decoding, .recovery, of: peer.uid, on: channel)
            default: break
            }
        }
        for peer in simulated where !channel.announced.contains(peer.uid) {
            channel.announced.append(peer.uid)
            emit(.didJoinedOfUid(peer.uid, elapsed: elapsedMilliseconds(since: channel.joinStartedAt)), on: channel)
            setRemoteVideo(.starting, .internal, of: peer.uid, on: channel)
            let delay = Duration.milliseconds(150 + Int64(peer.uid % 300))
            channel.videoTimers.append(timers.schedule(after: delay) { [weak self, id = channel.id] in
                guard let self else { return }
                self.fire(on: id) { channel in
                    guard channel.announced.contains(peer.uid), channel.state == .connected,
                          self.worlds[channel.connection.channelId]?.peer(peer.uid)?.silentSince == nil else { return }
                    self.emitFirstFrame(of: peer.uid, size: peer.videoSize, on: channel)
                    self.setRemoteVideo(.decoding, .internal, of: peer.uid, on: channel)
                }
            })
        }
    }

    /// `firstRemoteVideoFrame`, and its trace while rendering is traced.
    func emitFirstFrame(of uid: UInt, size: VideoSize, on channel: Channel) {
        let elapsed = elapsedMilliseconds(since: channel.joinStartedAt)
        emit(.firstRemoteVideoFrame(uid: uid, size: size, elapsed: elapsed), on: channel)
        if tracesRendering {
            var info = AgoraVideoRenderingTracingInfo()
            info.elapsedTime = elapsed
            emit(.videoRenderingTracingResult(uid: uid, event: .videoFrameRendered, info: info), on: channel)
        }
    }

    /// `didOfflineOfUid`, and the user's video stopped.
    func announceOffline(_ uid: UInt, reason: AgoraUserOfflineReason, on channel: Channel) {
        channel.announced.remove(uid)
        emit(.didOfflineOfUid(uid, reason: reason), on: channel)
        setRemoteVideo(.stopped, .remoteOffline, of: uid, on: channel)
        channel.remoteVideo[uid] = nil
    }

    /// Reports a remote user's video state: starting when announced, decoding at its first frame, frozen while its
    /// link is silent, stopped when it goes offline.
    func setRemoteVideo(_ state: AgoraVideoRemoteState, _ reason: AgoraVideoRemoteReason, of uid: UInt,
                        on channel: Channel) {
        channel.remoteVideo[uid] = state
        emit(.remoteVideoStateChanged(uid: uid, state: state, reason: reason,
                                      elapsed: elapsedMilliseconds(since: channel.joinStartedAt)), on: channel)
    }
}
