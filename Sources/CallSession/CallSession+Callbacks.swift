import ChannelEngine

extension CallSession {
    /// What the session does with each callback of the engine: publish it, and renew, recover or complete as it asks.
    func record(_ event: AgoraRtcEvent) {
        // The headless lines and the screen do not show didRejoinChannel yet: connected/rejoinSuccess says the same.
        if case .didRejoinChannel = event { return }
        if Self.unpublished(event) { return }
        emit(.engine(event))
        guard !stopping else { return }
        let byHand = if case .byHand = tokens { true } else { false }
        switch event {
        case .tokenPrivilegeWillExpire where byHand:
            fetch(for: .willExpire)
        case .requestToken where byHand:
            fetch(for: .requestToken)
        case .simulatorNotice(.tokenAccepted(let expiresAt, short: true)) where autoRenew && !byHand:
            renewShortToken(expiringAt: expiresAt)
        case .tokenPrivilegeWillExpire where autoRenew:
            // A short token's warning comes as it is taken; its renewal is planned already.
            if case .planned(.willExpire, _) = tokenPhase { break }
            fetch(for: .willExpire)
        case .requestToken where autoRenew:
            fetch(for: .requestToken)
        case .connectionStateChanged(.connected, _):
            connected()
        case .connectionStateChanged(let state, let reason) where Self.refused(state, reason):
            let mend = byHand ? "paste a token for this App ID, channel and uid to join again" : "a new token from the same server will not mend it"
            emit(.stuck(reason: "the network refused the call (\(reason.name)); \(mend)"))
        case .renewTokenResult(let token, let code) where code != .success:
            if let cache { Task { await cache.invalidate(rejected: token) } }
        default:
            break
        }
    }

    /// The engine's timed reports and link callbacks, which the headless lines and the screen do not show yet.
    private static func unpublished(_ event: AgoraRtcEvent) -> Bool {
        switch event {
        case .reportRtcStats, .networkQuality, .reportAudioVolumeIndication, .activeSpeaker, .remoteVideoStateChanged,
             .connectionInterrupted, .connectionLost, .connectionBanned:
            true
        default:
            false
        }
    }

    /// A token that lives less than the warning lead warns as soon as it is taken, and renewing at once would fetch
    /// without pause: such a token is renewed halfway through what is left of it.
    private func renewShortToken(expiringAt expiresAt: Int64) {
        let left = max(0, Double(expiresAt) - configuration.unixTime())
        plan(.willExpire, after: .milliseconds(Int64(left * 500)))
    }
}
