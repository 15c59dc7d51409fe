/// The callbacks of `AgoraRtcEngineKit`, named after Agora's; every one has an empty default.
///
/// They arrive on the main actor, in order, and never while another callback is running.
@MainActor
public protocol AgoraRtcEngineDelegate: AnyObject {
    func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinChannel channel: String, withUid uid: UInt, elapsed: Int)
    func rtcEngine(_ engine: AgoraRtcEngineKit, didRejoinChannel channel: String, withUid uid: UInt, elapsed: Int)
    func rtcEngine(_ engine: AgoraRtcEngineKit, didLeaveChannelWith connection: AgoraRtcConnection)
    func rtcEngine(_ engine: AgoraRtcEngineKit, connectionStateChanged state: AgoraConnectionState,
                   reason: AgoraConnectionChangedReason)
    func rtcEngine(_ engine: AgoraRtcEngineKit, tokenPrivilegeWillExpire token: String)
    func rtcEngineRequestToken(_ engine: AgoraRtcEngineKit)
    func rtcEngine(_ engine: AgoraRtcEngineKit, renewTokenResult token: String, code: AgoraRenewTokenErrorCode)
    func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinedOfUid uid: UInt, elapsed: Int)
    func rtcEngine(_ engine: AgoraRtcEngineKit, didOfflineOfUid uid: UInt, reason: AgoraUserOfflineReason)
    func rtcEngine(_ engine: AgoraRtcEngineKit, firstRemoteVideoFrameOfUid uid: UInt, size: VideoSize, elapsed: Int)
    func rtcEngine(_ engine: AgoraRtcEngineKit, didOccurError errorCode: AgoraErrorCode)
    func rtcEngine(_ engine: AgoraRtcEngineKit, didClientRoleChanged oldRole: AgoraClientRole, newRole: AgoraClientRole)
    /// Not an Agora callback: what the simulator observes (see `SimulatorNotice`).
    func rtcEngine(_ engine: AgoraRtcEngineKit, simulatorNotice notice: SimulatorNotice)
}

extension AgoraRtcEngineDelegate {
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinChannel channel: String, withUid uid: UInt, elapsed: Int) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didRejoinChannel channel: String, withUid uid: UInt, elapsed: Int) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didLeaveChannelWith connection: AgoraRtcConnection) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, connectionStateChanged state: AgoraConnectionState,
                          reason: AgoraConnectionChangedReason) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, tokenPrivilegeWillExpire token: String) {}
    public func rtcEngineRequestToken(_ engine: AgoraRtcEngineKit) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, renewTokenResult token: String, code: AgoraRenewTokenErrorCode) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinedOfUid uid: UInt, elapsed: Int) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didOfflineOfUid uid: UInt, reason: AgoraUserOfflineReason) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, firstRemoteVideoFrameOfUid uid: UInt, size: VideoSize, elapsed: Int) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didOccurError errorCode: AgoraErrorCode) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didClientRoleChanged oldRole: AgoraClientRole, newRole: AgoraClientRole) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, simulatorNotice notice: SimulatorNotice) {}
}
