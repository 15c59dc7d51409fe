import Foundation

/// The callbacks of `AgoraRtcEngineKit` with the header's Swift names; every one has an empty default, as the
/// SDK's are optional, so a forwarding app calls `delegate?.rtcEngine(…)` where Objective-C has `rtcEngine?(…)`.
///
/// The protocol is not isolated to an actor, as the SDK's Objective-C protocol is not: a class that conforms in its
/// own declaration stays nonisolated, and its other methods can call the engine from any thread. Each requirement is
/// `@MainActor` because that is where callbacks arrive (the SDK's main queue), so a view controller's main-actor
/// methods and a plain class's nonisolated ones both satisfy it. They arrive in order, after the call that caused
/// them has returned, and never while another callback is running.
public protocol AgoraRtcEngineDelegate: AnyObject {
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinChannel channel: String, withUid uid: UInt, elapsed: Int)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, didRejoinChannel channel: String, withUid uid: UInt, elapsed: Int)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, didLeaveChannelWith stats: AgoraChannelStats)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, connectionChangedTo state: AgoraConnectionState,
                   reason: AgoraConnectionChangedReason)
    /// The spelling of Agora's guide, which the header does not have; called right after `connectionChangedTo`.
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, connectionStateChanged state: AgoraConnectionState,
                   reason: AgoraConnectionChangedReason)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, tokenPrivilegeWillExpire token: String)
    @MainActor
    func rtcEngineRequestToken(_ engine: AgoraRtcEngineKit)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, renewTokenResult token: String, code: AgoraRenewTokenErrorCode)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinedOfUid uid: UInt, elapsed: Int)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, didOfflineOfUid uid: UInt, reason: AgoraUserOfflineReason)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, firstRemoteVideoFrameOfUid uid: UInt, size: CGSize, elapsed: Int)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, didOccurError errorCode: AgoraErrorCode)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, didClientRoleChanged oldRole: AgoraClientRole, newRole: AgoraClientRole,
                   newRoleOptions: AgoraClientRoleOptions?)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, didLocalUserRegisteredWithUserId uid: UInt, userAccount: String)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, didUserInfoUpdatedWithUserId uid: UInt, userInfo: AgoraUserInfo)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, reportRtcStats stats: AgoraChannelStats)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, networkQuality uid: UInt, txQuality: AgoraNetworkQuality,
                   rxQuality: AgoraNetworkQuality)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, reportAudioVolumeIndicationOfSpeakers speakers: [AgoraRtcAudioVolumeInfo],
                   totalVolume: Int)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, activeSpeaker speakerUid: UInt)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, remoteVideoStateChangedOfUid uid: UInt, state: AgoraVideoRemoteState,
                   reason: AgoraVideoRemoteReason, elapsed: Int)
    @MainActor
    func rtcEngineConnectionDidInterrupted(_ engine: AgoraRtcEngineKit)
    @MainActor
    func rtcEngineConnectionDidLost(_ engine: AgoraRtcEngineKit)
    @MainActor
    func rtcEngineConnectionDidBanned(_ engine: AgoraRtcEngineKit)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, localAudioStateChanged state: AgoraAudioLocalState,
                   reason: AgoraAudioLocalReason)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, localVideoStateChangedOf state: AgoraVideoLocalState,
                   reason: AgoraLocalVideoStreamReason, sourceType: AgoraVideoSourceType)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, localAudioStats stats: AgoraRtcLocalAudioStats)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, remoteVideoStats stats: AgoraRtcRemoteVideoStats)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, remoteAudioStats stats: AgoraRtcRemoteAudioStats)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, networkTypeChanged type: AgoraNetworkType)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, didOccurWarning warningCode: AgoraWarningCode)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, snapshotTaken uid: UInt, filePath: String, width: Int, height: Int,
                   errCode: Int)
    /// The 4.2-era shape, called right after the 4.6 one with the same numbers.
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, localAudioStateChanged state: AgoraAudioLocalState,
                   error: AgoraAudioLocalError)
    /// The 4.2-era shape, called right after the 4.6 one with the same numbers.
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, localVideoStateChangedOf state: AgoraVideoLocalState,
                   error: AgoraLocalVideoStreamError, sourceType: AgoraVideoSourceType)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, remoteAudioStateChangedOfUid uid: UInt, state: AgoraAudioRemoteState,
                   reason: AgoraAudioRemoteReason, elapsed: Int)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, localVideoStats stats: AgoraRtcLocalVideoStats, sourceType: AgoraVideoSourceType)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, lastmileQuality quality: AgoraNetworkQuality)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, lastmileProbeTest result: AgoraLastmileProbeResult)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, didProxyConnected channel: String, withUid uid: UInt, proxyType: AgoraProxyType,
                   localProxyIp: String, elapsed: Int)
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, videoRenderingTracingResultOfUid uid: UInt, currentEvent: AgoraMediaTraceEvent,
                   tracingInfo: AgoraVideoRenderingTracingInfo)
    /// Never called: the simulated camera does not focus.
    @MainActor
    func rtcEngine(_ engine: AgoraRtcEngineKit, cameraFocusDidChangedTo rect: CGRect)
    /// Not an Agora callback: what the simulator observes (see `SimulatorNotice`).
    @MainActor
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
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didLocalUserRegisteredWithUserId uid: UInt, userAccount: String) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didUserInfoUpdatedWithUserId uid: UInt, userInfo: AgoraUserInfo) {}
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
    public func rtcEngine(_ engine: AgoraRtcEngineKit, localAudioStateChanged state: AgoraAudioLocalState,
                          reason: AgoraAudioLocalReason) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, localVideoStateChangedOf state: AgoraVideoLocalState,
                          reason: AgoraLocalVideoStreamReason, sourceType: AgoraVideoSourceType) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, localAudioStats stats: AgoraRtcLocalAudioStats) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, remoteVideoStats stats: AgoraRtcRemoteVideoStats) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, remoteAudioStats stats: AgoraRtcRemoteAudioStats) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, networkTypeChanged type: AgoraNetworkType) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didOccurWarning warningCode: AgoraWarningCode) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, snapshotTaken uid: UInt, filePath: String, width: Int, height: Int,
                          errCode: Int) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, localAudioStateChanged state: AgoraAudioLocalState,
                          error: AgoraAudioLocalError) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, localVideoStateChangedOf state: AgoraVideoLocalState,
                          error: AgoraLocalVideoStreamError, sourceType: AgoraVideoSourceType) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, remoteAudioStateChangedOfUid uid: UInt, state: AgoraAudioRemoteState,
                          reason: AgoraAudioRemoteReason, elapsed: Int) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, localVideoStats stats: AgoraRtcLocalVideoStats, sourceType: AgoraVideoSourceType) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, lastmileQuality quality: AgoraNetworkQuality) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, lastmileProbeTest result: AgoraLastmileProbeResult) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didProxyConnected channel: String, withUid uid: UInt, proxyType: AgoraProxyType,
                          localProxyIp: String, elapsed: Int) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, videoRenderingTracingResultOfUid uid: UInt, currentEvent: AgoraMediaTraceEvent,
                          tracingInfo: AgoraVideoRenderingTracingInfo) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, cameraFocusDidChangedTo rect: CGRect) {}
    public func rtcEngine(_ engine: AgoraRtcEngineKit, simulatorNotice notice: SimulatorNotice) {}
}
