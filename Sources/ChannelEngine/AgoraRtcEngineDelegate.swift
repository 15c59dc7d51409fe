import Foundation

/// The callbacks of `AgoraRtcEngineKit` with the header's Swift names; every one has an empty default, as the
/// SDK's are optional.
///
/// They arrive on the main actor, in order, after the call that caused them has returned, and never while another
/// callback is running.
@MainActor
public protocol AgoraRtcEngineDelegate: AnyObject {
    func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinChannel channel: String, withUid uid: UInt, elapsed: Int)
    func rtcEngine(_ engine: AgoraRtcEngineKit, didRejoinChannel channel: String, withUid uid: UInt, elapsed: Int)
    func rtcEngine(_ engine: AgoraRtcEngineKit, didLeaveChannelWith stats: AgoraChannelStats)
    func rtcEngine(_ engine: AgoraRtcEngineKit, connectionChangedTo state: AgoraConnectionState,
                   reason: AgoraConnectionChangedReason)
    /// The spelling of Agora's guide, which the header does not have; called right after `connectionChangedTo`.
    func rtcEngine(_ engine: AgoraRtcEngineKit, connectionStateChanged state: AgoraConnectionState,
                   reason: AgoraConnectionChangedReason)
    func rtcEngine(_ engine: AgoraRtcEngineKit, tokenPrivilegeWillExpire token: String)
    func rtcEngineRequestToken(_ engine: AgoraRtcEngineKit)
    func rtcEngine(_ engine: AgoraRtcEngineKit, renewTokenResult token: String, code: AgoraRenewTokenErrorCode)
    func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinedOfUid uid: UInt, elapsed: Int)
    func rtcEngine(_ engine: AgoraRtcEngineKit, didOfflineOfUid uid: UInt, reason: AgoraUserOfflineReason)
    func rtcEngine(_ engine: AgoraRtcEngineKit, firstRemoteVideoFrameOfUid uid: UInt, size: CGSize, elapsed: Int)
    func rtcEngine(_ engine: AgoraRtcEngineKit, didOccurError errorCode: AgoraErrorCode)
    func rtcEngine(_ engine: AgoraRtcEngineKit, didClientRoleChanged oldRole: AgoraClientRole, newRole: AgoraClientRole,
                   newRoleOptions: AgoraClientRoleOptions?)
    func rtcEngine(_ engine: AgoraRtcEngineKit, didRegisteredLocalUser userAccount: String, withUid uid: UInt)
    func rtcEngine(_ engine: AgoraRtcEngineKit, reportRtcStats stats: AgoraChannelStats)
    func rtcEngine(_ engine: AgoraRtcEngineKit, networkQuality uid: UInt, txQuality: AgoraNetworkQuality,
                   rxQuality: AgoraNetworkQuality)
    func rtcEngine(_ engine: AgoraRtcEngineKit, reportAudioVolumeIndicationOfSpeakers speakers: [AgoraRtcAudioVolumeInfo],
                   totalVolume: Int)
    func rtcEngine(_ engine: AgoraRtcEngineKit, activeSpeaker speakerUid: UInt)
    func rtcEngine(_ engine: AgoraRtcEngineKit, remoteVideoStateChangedOfUid uid: UInt, state: AgoraVideoRemoteState,
                   reason: AgoraVideoRemoteReason, elapsed: Int)
    func rtcEngineConnectionDidInterrupted(_ engine: AgoraRtcEngineKit)
    func rtcEngineConnectionDidLost(_ engine: AgoraRtcEngineKit)
    func rtcEngineConnectionDidBanned(_ engine: AgoraRtcEngineKit)
    /// Not an Agora callback: what the simulator observes (see `SimulatorNotice`).
    func rtcEngine(_ engine: AgoraRtcEngineKit, simulatorNotice notice: SimulatorNotice)
}

extension AgoraRtcEngineDelegate {
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinChannel channel: String, withUid uid: UInt, elapsed: Int) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didRejoinChannel channel: String, withUid uid: UInt, elapsed: Int) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didLeaveChannelWith stats: AgoraChannelStats) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, connectionChangedTo state: AgoraConnectionState,
                          reason: AgoraConnectionChangedReason) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, connectionStateChanged state: AgoraConnectionState,
                          reason: AgoraConnectionChangedReason) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, tokenPrivilegeWillExpire token: String) {}
    public func rtcEngineRequestToken(_ engine: AgoraRtcEngineKit) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, renewTokenResult token: String, code: AgoraRenewTokenErrorCode) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinedOfUid uid: UInt, elapsed: Int) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didOfflineOfUid uid: UInt, reason: AgoraUserOfflineReason) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, firstRemoteVideoFrameOfUid uid: UInt, size: CGSize, elapsed: Int) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didOccurError errorCode: AgoraErrorCode) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didClientRoleChanged oldRole: AgoraClientRole, newRole: AgoraClientRole,
                          newRoleOptions: AgoraClientRoleOptions?) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didRegisteredLocalUser userAccount: String, withUid uid: UInt) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, reportRtcStats stats: AgoraChannelStats) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, networkQuality uid: UInt, txQuality: AgoraNetworkQuality,
                          rxQuality: AgoraNetworkQuality) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, reportAudioVolumeIndicationOfSpeakers speakers: [AgoraRtcAudioVolumeInfo],
                          totalVolume: Int) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, activeSpeaker speakerUid: UInt) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, remoteVideoStateChangedOfUid uid: UInt, state: AgoraVideoRemoteState,
                          reason: AgoraVideoRemoteReason, elapsed: Int) {}
    public func rtcEngineConnectionDidInterrupted(_ engine: AgoraRtcEngineKit) {}
    public func rtcEngineConnectionDidLost(_ engine: AgoraRtcEngineKit) {}
    public func rtcEngineConnectionDidBanned(_ engine: AgoraRtcEngineKit) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, simulatorNotice notice: SimulatorNotice) {}
}
