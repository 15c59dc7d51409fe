import ChannelEngine

extension CallSession: AgoraRtcEngineDelegate {
    private func record(_ event: AgoraRtcEvent) {
        emit(.engine(event))
        switch event {
        case .simulatorNotice(.tokenAccepted(let expiresAt, short: true)) where autoRenew:
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
            emit(.stuck(reason: "the network refused the call (\(reason.name)); a new token from the same server will not mend it"))
        case .renewTokenResult(let token, let code) where code != .success:
            if let cache { Task { await cache.invalidate(rejected: token) } }
        default:
            break
        }
    }

    /// A token that lives less than the warning lead warns as soon as it is taken, and renewing at once would fetch
    /// without pause: such a token is renewed halfway through what is left of it.
    private func renewShortToken(expiringAt expiresAt: Int64) {
        let left = max(0, Double(expiresAt) - configuration.unixTime())
        plan(.willExpire, after: .milliseconds(Int64(left * 500)))
    }

    public func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinChannel channel: String, withUid uid: UInt, elapsed: Int) {
        record(.didJoinChannel(channel: channel, uid: uid, elapsed: elapsed))
    }
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didLeaveChannelWith connection: AgoraRtcConnection) {
        record(.didLeaveChannel(connection))
    }
    public func rtcEngine(_ engine: AgoraRtcEngineKit, connectionStateChanged state: AgoraConnectionState,
                          reason: AgoraConnectionChangedReason) {
        record(.connectionStateChanged(state, reason: reason))
    }
    public func rtcEngine(_ engine: AgoraRtcEngineKit, tokenPrivilegeWillExpire token: String) {
        record(.tokenPrivilegeWillExpire(token: token))
    }
    public func rtcEngineRequestToken(_ engine: AgoraRtcEngineKit) { record(.requestToken) }
    public func rtcEngine(_ engine: AgoraRtcEngineKit, renewTokenResult token: String, code: AgoraRenewTokenErrorCode) {
        record(.renewTokenResult(token: token, code: code))
    }
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinedOfUid uid: UInt, elapsed: Int) {
        record(.didJoinedOfUid(uid, elapsed: elapsed))
    }
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didOfflineOfUid uid: UInt, reason: AgoraUserOfflineReason) {
        record(.didOfflineOfUid(uid, reason: reason))
    }
    public func rtcEngine(_ engine: AgoraRtcEngineKit, firstRemoteVideoFrameOfUid uid: UInt, size: VideoSize, elapsed: Int) {
        record(.firstRemoteVideoFrame(uid: uid, size: size, elapsed: elapsed))
    }
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didOccurError errorCode: AgoraErrorCode) {
        record(.didOccurError(errorCode))
    }
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didClientRoleChanged oldRole: AgoraClientRole, newRole: AgoraClientRole) {
        record(.didClientRoleChanged(old: oldRole, new: newRole))
    }
    public func rtcEngine(_ engine: AgoraRtcEngineKit, simulatorNotice notice: SimulatorNotice) {
        record(.simulatorNotice(notice))
    }
}
