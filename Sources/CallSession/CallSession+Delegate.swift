import ChannelEngine
import Foundation
import Timers

/// The engine's callbacks, through the delegate methods of Agora's header as an app implements them: each is
/// published as an event, and renews, recovers or completes what it asks for.
extension CallSession: AgoraRtcEngineDelegate {
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinChannel channel: String, withUid uid: UInt, elapsed: Int) {
        publish(.didJoinChannel(channel: channel, uid: uid, elapsed: elapsed))
    }

    public func rtcEngine(_ engine: AgoraRtcEngineKit, didRejoinChannel channel: String, withUid uid: UInt, elapsed: Int) {
        publish(.didRejoinChannel(channel: channel, uid: uid, elapsed: elapsed))
    }

    public func rtcEngine(_ engine: AgoraRtcEngineKit, didLeaveChannelWith stats: AgoraChannelStats) {
        // The header gives statistics only: channel and uid are those of the leave this answers.
        let left = leaving.isEmpty ? engine.connection : leaving.removeFirst()
        publish(.didLeaveChannel(channel: left?.channelId ?? configuration.channel, uid: UInt(left?.localUid ?? 0), stats: stats))
    }

    public func rtcEngine(_ engine: AgoraRtcEngineKit, connectionChangedTo state: AgoraConnectionState,
                          reason: AgoraConnectionChangedReason) {
        if state == .disconnected || state == .failed { releaseRemoteVideo(engine) }
        publish(.connectionStateChanged(state, reason: reason))
        guard !stopping else { return }
        if state == .connected {
            renewalRanOut = false
            renewalTaken()
        } else if state == .failed, reason == .reasonTokenExpired, !configuration.voice.profile.requestsToken {
            // The Web's call is over at expiry: its app leaves and joins again with a fresh token (the `r` path).
            guard autoRenew || tokensByHand else { return }
            leaveChannel(engine)
            fetch(for: .join)
        } else if state == .failed, reason == .reasonTokenExpired, let pending = pendingRenewal,
                  tokens.ownServer?.mistakes?.current() == nil {
            // A renewal out of an expired call rejoins, and its token (sound when it arrived: only a server erring on
            // purpose hands over an expired one) can run out before the network answers the join.
            rejected(pending.token)
            let why = "the new token ran out before the network took it: the token server's tokens end too soon after they "
                + "arrive (the join takes \(engine.simulation.joinLatency.wholeMilliseconds) ms)"
            if renewalRanOut { return emit(.stuck(reason: "\(why), twice in a row; nothing will retry")) }
            renewalRanOut = true
            emit(.note("\(why); fetching another"))
            if autoRenew || tokensByHand { fetch(for: .requestToken) }
        } else if reason == .sameUidLogin {
            emit(.stuck(reason: "the same uid joined this channel elsewhere and took its place (sameUidLogin); join with another uid"))
        } else if Self.refused(state, reason) {
            let why = reason == .reasonInvalidToken ? userMismatch(in: delivered?.token).map { ": \($0)" } ?? "" : ""
            let mend = if tokensByHand {
                "paste a token for this App ID, channel and uid to join again"
            } else if let mistake = tokens.ownServer?.mistakes?.current() {
                "the embedded token server makes \(mistake.rawValue) tokens on purpose: put it right (misconfigure none), then join again"
            } else {
                "a new token from the same server will not mend it"
            }
            emit(.stuck(reason: "the network refused the call (\(reason.name))\(why); \(mend)"))
        }
    }

    public func rtcEngine(_ engine: AgoraRtcEngineKit, tokenPrivilegeWillExpire token: String) {
        publish(.tokenPrivilegeWillExpire(token: token))
        // With tokens pasted by hand nothing is fetched: the session asks for one whatever auto-renew says.
        guard !stopping, autoRenew || tokensByHand else { return }
        // A short token's warning comes as it is taken; its renewal is planned already.
        if case .planned(.willExpire, _, _) = tokenPhase { return }
        fetch(for: .willExpire)
    }

    public func rtcEngineRequestToken(_ engine: AgoraRtcEngineKit) {
        publish(.requestToken)
        guard !stopping, autoRenew || tokensByHand else { return }
        // The Web has no request for a token: its call ends (`connectionChangedTo` joins again).
        guard configuration.voice.profile.requestsToken else { return }
        if case .fetching(.willExpire) = tokenPhase {
            let lead = engine.simulation.willExpireLead.wholeSeconds
            emit(.note("the token ran out with its renewal still on the way: the token server took longer than the \(lead) s "
                       + "between the warning and the end; the renewal rejoins when it arrives"))
        }
        fetch(for: .requestToken)
    }

    public func rtcEngine(_ engine: AgoraRtcEngineKit, renewTokenResult token: String, code: AgoraRenewTokenErrorCode) {
        publish(.renewTokenResult(token: token, code: code))
        guard !stopping else { return }
        guard code != .success else { return renewalTaken(byResult: true) }
        if let mismatch = userMismatch(in: token) { emit(.note("the engine refused the new token: \(mismatch)")) }
        rejected(token)
    }

    public func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinedOfUid uid: UInt, elapsed: Int) {
        let tile = VideoTile(uid: uid)
        remoteTiles[uid] = tile
        engine.setupRemoteVideo(tile.canvas)
        publish(.didJoinedOfUid(uid, elapsed: elapsed))
    }

    public func rtcEngine(_ engine: AgoraRtcEngineKit, didOfflineOfUid uid: UInt, reason: AgoraUserOfflineReason) {
        releaseRemoteVideo(engine, of: [uid])
        publish(.didOfflineOfUid(uid, reason: reason))
    }

    public func rtcEngine(_ engine: AgoraRtcEngineKit, firstRemoteVideoFrameOfUid uid: UInt, size: CGSize, elapsed: Int) {
        publish(.firstRemoteVideoFrame(uid: uid, size: VideoSize(width: Int(size.width), height: Int(size.height)), elapsed: elapsed))
    }

    public func rtcEngine(_ engine: AgoraRtcEngineKit, didOccurError errorCode: AgoraErrorCode) {
        publish(.didOccurError(errorCode))
        // updateChannel's answer to a refused token (renewToken's is renewTokenResult).
        if errorCode == .invalidToken, engine.connectionState == .connected, let mismatch = userMismatch(in: delivered?.token) {
            emit(.note("the engine refused the new token: \(mismatch)"))
        }
        if let pending = pendingRenewal, pending.method == .update, TokenRejection.all.contains(where: { $0.error == errorCode }) {
            rejected(pending.token)
        }
    }

    public func rtcEngine(_ engine: AgoraRtcEngineKit, didClientRoleChanged oldRole: AgoraClientRole, newRole: AgoraClientRole,
                          newRoleOptions: AgoraClientRoleOptions?) {
        publish(.didClientRoleChanged(old: oldRole, new: newRole, latency: newRoleOptions?.audienceLatencyLevel))
    }

    public func rtcEngine(_ engine: AgoraRtcEngineKit, didLocalUserRegisteredWithUserId uid: UInt, userAccount: String) {
        publish(.didLocalUserRegistered(account: userAccount, uid: uid))
    }

    public func rtcEngine(_ engine: AgoraRtcEngineKit, reportRtcStats stats: AgoraChannelStats) {
        publish(.reportRtcStats(stats))
    }

    /// Published when the user's quality differs from the last published for them: the engine repeats it every 2 s.
    public func rtcEngine(_ engine: AgoraRtcEngineKit, networkQuality uid: UInt, txQuality: AgoraNetworkQuality,
                          rxQuality: AgoraNetworkQuality) {
        guard lastQuality[uid].map({ $0 != (txQuality, rxQuality) }) ?? true else { return }
        lastQuality[uid] = (txQuality, rxQuality)
        publish(.networkQuality(uid: uid, tx: txQuality, rx: rxQuality))
    }

    public func rtcEngine(_ engine: AgoraRtcEngineKit, reportAudioVolumeIndicationOfSpeakers speakers: [AgoraRtcAudioVolumeInfo],
                          totalVolume: Int) {
        publish(.reportAudioVolumeIndication(speakers: speakers, totalVolume: totalVolume))
    }

    public func rtcEngine(_ engine: AgoraRtcEngineKit, activeSpeaker speakerUid: UInt) {
        publish(.activeSpeaker(uid: speakerUid))
    }

    public func rtcEngine(_ engine: AgoraRtcEngineKit, remoteVideoStateChangedOfUid uid: UInt, state: AgoraVideoRemoteState,
                          reason: AgoraVideoRemoteReason, elapsed: Int) {
        publish(.remoteVideoStateChanged(uid: uid, state: state, reason: reason, elapsed: elapsed))
    }

    public func rtcEngine(_ engine: AgoraRtcEngineKit, remoteAudioStateChangedOfUid uid: UInt, state: AgoraAudioRemoteState,
                          reason: AgoraAudioRemoteReason, elapsed: Int) {
        publish(.remoteAudioStateChanged(uid: uid, state: state, reason: reason, elapsed: elapsed))
    }

    public func rtcEngineConnectionDidInterrupted(_ engine: AgoraRtcEngineKit) { publish(.connectionInterrupted) }

    public func rtcEngineConnectionDidLost(_ engine: AgoraRtcEngineKit) { publish(.connectionLost) }

    public func rtcEngineConnectionDidBanned(_ engine: AgoraRtcEngineKit) { publish(.connectionBanned) }

    public func rtcEngine(_ engine: AgoraRtcEngineKit, simulatorNotice notice: SimulatorNotice) {
        publish(.simulatorNotice(notice))
        guard case .tokenAccepted(let expiresAt, let short) = notice, !stopping else { return }
        renewalTaken()
        if short, autoRenew, !tokensByHand { renewShortToken(expiringAt: expiresAt) }
    }

    private func publish(_ callback: AgoraRtcEvent) { emit(.engine(callback)) }

    /// Takes the canvases of remote users away (those given, or all of them) and forgets their quality, so that it is
    /// published afresh: they left, or the call did.
    private func releaseRemoteVideo(_ engine: AgoraRtcEngineKit, of uids: [UInt]? = nil) {
        for uid in uids ?? Array(remoteTiles.keys) where remoteTiles.removeValue(forKey: uid) != nil {
            let canvas = AgoraRtcVideoCanvas()
            canvas.uid = uid
            engine.setupRemoteVideo(canvas)
        }
        if let uids { uids.forEach { lastQuality[$0] = nil } } else { lastQuality = [:] }
    }

    /// A token that lives less than the warning lead warns as soon as it is taken, and renewing at once would fetch
    /// without pause: such a token is renewed halfway through what is left of it.
    private func renewShortToken(expiringAt expiresAt: Int64) {
        let left = max(0, Double(expiresAt) - configuration.unixTime())
        plan(.willExpire, after: .milliseconds(Int64(left * 500)), on: timers)
    }
}
