import HubProtocol
import Timers

extension AgoraRtcEngineKit {
    /// How long a lost link takes to show, as in Agora's SDK.
    static let interruptedAfter: Duration = .seconds(4)
    static let lostAfter: Duration = .seconds(10)
    static let failedAfter: Duration = .seconds(20 * 60)

    /// Cuts (`true`) or restores (`false`) the simulated link. Cut: `networkTypeChanged` disconnected at once,
    /// reconnecting / interrupted, `rtcEngineConnectionDidInterrupted` and the warning openChannelTimeout (106, the
    /// header's own example of a warning) after 4 s, reconnecting / lost and `rtcEngineConnectionDidLost` at 10 s, remote users dropped at 20 s, failed / joinFailed at 20 min.
    /// Restored: `networkTypeChanged` LAN, connected / rejoinSuccess, `didRejoinChannel`, and remote users back.
    public func simulateNetworkInterruption(_ down: Bool) {
        call { setNetwork(down: down) }
    }

    private func setNetwork(down: Bool) {
        guard down != (networkDownSince != nil) else { return }
        hub?.link.setSilent(down)
        if down {
            networkDownSince = timers.now
            emit(.simulatorNotice(.network(down: true)), on: nil)
            emit(.networkTypeChanged(.disconnected), on: nil)
            for channel in activeChannels where channel.isInChannel { scheduleLinkLoss(on: channel) }
        } else {
            let silence = networkDownSince.map { timers.now - $0 } ?? .zero
            networkDownSince = nil
            emit(.simulatorNotice(.network(down: false)), on: nil)
            emit(.networkTypeChanged(.lan), on: nil)
            for channel in activeChannels {
                timers.cancel(channel.linkTimers)
                channel.linkTimers = []
                if usesHub(channel), !hubNetworkRestored(channel, after: silence) { continue }
                if channel.state == .reconnecting {
                    setState(.connected, .reasonRejoinSuccess, on: channel)
                    emit(.didRejoinChannel(channel: channel.connection.channelId, uid: channel.connection.localUid,
                                           elapsed: elapsedMilliseconds(since: channel.joinStartedAt)), on: channel)
                }
                if channel.joinWaitsForNetwork { completeJoin(channel, rejoining: channel.reason == .reasonRenewToken) }
                syncRemoteUsers(of: channel)
            }
        }
    }

    /// The server bans the local user: failed / bannedByServer and `rtcEngineConnectionDidBanned` on every connection.
    public func simulateBan() {
        call {
            for channel in activeChannels where channel.isActive && channel.state != .failed {
                stopTimers(of: channel)
                setState(.failed, .reasonBannedByServer, on: channel)
                emit(.connectionBanned, on: channel)
                detach(channel)
            }
        }
    }

    var activeChannels: [Channel] {
        ([main].compactMap { $0 } + exChannels).filter(\.isActive)
    }

    /// The link's loss as the app sees it over time, `passed` since its last packet; `interruptedShown` when
    /// reconnecting / interrupted is reported already.
    func scheduleLinkLoss(on channel: Channel, interruptedShown: Bool = false, passed: Duration = .zero) {
        func at(_ delay: Duration, _ work: @escaping @MainActor (Channel) -> Void) -> TimerQueue.ID {
            timers.schedule(after: max(.zero, delay - passed)) { [weak self, id = channel.id] in
                self?.fire(on: id) { channel in if channel.isInChannel { work(channel) } }
            }
        }
        channel.linkTimers = interruptedShown ? [] : [
            at(Self.interruptedAfter) { [unowned self] channel in
                self.setState(.reconnecting, .reasonInterrupted, on: channel)
                self.emit(.connectionInterrupted, on: channel)
                self.emit(.didOccurWarning(.openChannelTimeout), on: channel)
            },
        ]
        channel.linkTimers += [
            at(Self.lostAfter) { [unowned self] channel in
                self.setState(.reconnecting, .reasonLost, on: channel)
                self.emit(.connectionLost, on: channel)
            },
            at(HubSilence.limit) { [unowned self] channel in
                for uid in channel.announced { self.announceOffline(uid, reason: .dropped, on: channel) }
                self.emit(.simulatorNotice(.localUserOfflineForPeers(.dropped)), on: channel)
            },
            at(Self.failedAfter) { [unowned self] channel in
                self.stopTimers(of: channel)
                self.setState(.failed, .reasonJoinFailed, on: channel)
                self.detach(channel)
            },
        ]
    }
}
