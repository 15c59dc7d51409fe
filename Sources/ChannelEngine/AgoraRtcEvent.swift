import Foundation

/// One delegate callback as a value: what a recorder, a log or an event stream keeps.
public enum AgoraRtcEvent: Sendable, Equatable {
    case didJoinChannel(channel: String, uid: UInt, elapsed: Int)
    case didRejoinChannel(channel: String, uid: UInt, elapsed: Int)
    case didLeaveChannel(channel: String, uid: UInt, stats: AgoraChannelStats)
    case connectionStateChanged(AgoraConnectionState, reason: AgoraConnectionChangedReason)
    case tokenPrivilegeWillExpire(token: String)
    case requestToken
    case renewTokenResult(token: String, code: AgoraRenewTokenErrorCode)
    case didJoinedOfUid(UInt, elapsed: Int)
    case didOfflineOfUid(UInt, reason: AgoraUserOfflineReason)
    case firstRemoteVideoFrame(uid: UInt, size: VideoSize, elapsed: Int)
    case didOccurError(AgoraErrorCode)
    /// `latency`: the level given with the change (`setClientRole(_:options:)`, or the media options'), nil without one.
    case didClientRoleChanged(old: AgoraClientRole, new: AgoraClientRole, latency: AgoraAudienceLatencyLevelType? = nil)
    /// The SDK 4.x `didLocalUserRegisteredWithUserId`.
    case didLocalUserRegistered(account: String, uid: UInt)
    case didUserInfoUpdated(uid: UInt, account: String)
    case reportRtcStats(AgoraChannelStats)
    case networkQuality(uid: UInt, tx: AgoraNetworkQuality, rx: AgoraNetworkQuality)
    case reportAudioVolumeIndication(speakers: [AgoraRtcAudioVolumeInfo], totalVolume: Int)
    case activeSpeaker(uid: UInt)
    case remoteVideoStateChanged(uid: UInt, state: AgoraVideoRemoteState, reason: AgoraVideoRemoteReason, elapsed: Int)
    case connectionInterrupted
    case connectionLost
    case connectionBanned
    case localAudioStateChanged(AgoraAudioLocalState, reason: AgoraAudioLocalReason)
    case localVideoStateChanged(AgoraVideoLocalState, reason: AgoraLocalVideoStreamReason, source: AgoraVideoSourceType)
    case localAudioStats(AgoraRtcLocalAudioStats)
    case remoteVideoStats(AgoraRtcRemoteVideoStats)
    case remoteAudioStats(AgoraRtcRemoteAudioStats)
    case networkTypeChanged(AgoraNetworkType)
    case didOccurWarning(AgoraWarningCode)
    case snapshotTaken(uid: UInt, filePath: String, width: Int, height: Int, errCode: Int)
    case remoteAudioStateChanged(uid: UInt, state: AgoraAudioRemoteState, reason: AgoraAudioRemoteReason, elapsed: Int)
    case localVideoStats(AgoraRtcLocalVideoStats, source: AgoraVideoSourceType)
    case lastmileQuality(AgoraNetworkQuality)
    case lastmileProbeTest(AgoraLastmileProbeResult)
    case didProxyConnected(channel: String, uid: UInt, proxyType: AgoraProxyType, elapsed: Int)
    case videoRenderingTracingResult(uid: UInt, event: AgoraMediaTraceEvent, info: AgoraVideoRenderingTracingInfo)
    case simulatorNotice(SimulatorNotice)

    /// The callback's name as Agora's docs write it.
    public var name: String {
        switch self {
        case .didJoinChannel: "didJoinChannel"
        case .didRejoinChannel: "didRejoinChannel"
        case .didLeaveChannel: "didLeaveChannel"
        case .connectionStateChanged: "connectionStateChanged"
        case .tokenPrivilegeWillExpire: "tokenPrivilegeWillExpire"
        case .requestToken: "requestToken"
        case .renewTokenResult: "renewTokenResult"
        case .didJoinedOfUid: "didJoinedOfUid"
        case .didOfflineOfUid: "didOfflineOfUid"
        case .firstRemoteVideoFrame: "firstRemoteVideoFrame"
        case .didOccurError: "didOccurError"
        case .didClientRoleChanged: "didClientRoleChanged"
        case .didLocalUserRegistered: "didLocalUserRegistered"
        case .didUserInfoUpdated: "didUserInfoUpdated"
        case .reportRtcStats: "reportRtcStats"
        case .networkQuality: "networkQuality"
        case .reportAudioVolumeIndication: "reportAudioVolumeIndicationOfSpeakers"
        case .activeSpeaker: "activeSpeaker"
        case .remoteVideoStateChanged: "remoteVideoStateChanged"
        case .connectionInterrupted: "connectionDidInterrupted"
        case .connectionLost: "connectionDidLost"
        case .connectionBanned: "connectionDidBanned"
        case .localAudioStateChanged: "localAudioStateChanged"
        case .localVideoStateChanged: "localVideoStateChanged"
        case .localAudioStats: "localAudioStats"
        case .remoteVideoStats: "remoteVideoStats"
        case .remoteAudioStats: "remoteAudioStats"
        case .networkTypeChanged: "networkTypeChanged"
        case .didOccurWarning: "didOccurWarning"
        case .snapshotTaken: "snapshotTaken"
        case .remoteAudioStateChanged: "remoteAudioStateChanged"
        case .localVideoStats: "localVideoStats"
        case .lastmileQuality: "lastmileQuality"
        case .lastmileProbeTest: "lastmileProbeTest"
        case .didProxyConnected: "didProxyConnected"
        case .videoRenderingTracingResult: "videoRenderingTracingResultOfUid"
        case .simulatorNotice: "simulatorNotice"
        }
    }

    @MainActor
    func deliver(to delegate: any AgoraRtcEngineDelegate, from engine: AgoraRtcEngineKit) {
        switch self {
        case .didJoinChannel(let channel, let uid, let elapsed):
            delegate.rtcEngine(engine, didJoinChannel: channel, withUid: uid, elapsed: elapsed)
        case .didRejoinChannel(let channel, let uid, let elapsed):
            delegate.rtcEngine(engine, didRejoinChannel: channel, withUid: uid, elapsed: elapsed)
        case .didLeaveChannel(_, _, let stats):
            delegate.rtcEngine(engine, didLeaveChannelWith: stats)
        case .connectionStateChanged(let state, let reason):
            delegate.rtcEngine(engine, connectionChangedTo: state, reason: reason)
            delegate.rtcEngine(engine, connectionStateChanged: state, reason: reason)
        case .tokenPrivilegeWillExpire(let token):
            delegate.rtcEngine(engine, tokenPrivilegeWillExpire: token)
        case .requestToken:
            delegate.rtcEngineRequestToken(engine)
        case .renewTokenResult(let token, let code):
            delegate.rtcEngine(engine, renewTokenResult: token, code: code)
        case .didJoinedOfUid(let uid, let elapsed):
            delegate.rtcEngine(engine, didJoinedOfUid: uid, elapsed: elapsed)
        case .didOfflineOfUid(let uid, let reason):
            delegate.rtcEngine(engine, didOfflineOfUid: uid, reason: reason)
        case .firstRemoteVideoFrame(let uid, let size, let elapsed):
            delegate.rtcEngine(engine, firstRemoteVideoFrameOfUid: uid,
                               size: CGSize(width: Double(size.width), height: Double(size.height)), elapsed: elapsed)
        case .didOccurError(let code):
            delegate.rtcEngine(engine, didOccurError: code)
        case .didClientRoleChanged(let old, let new, let latency):
            let options = latency.map { level in
                let options = AgoraClientRoleOptions()
                options.audienceLatencyLevel = level
                return options
            }
            delegate.rtcEngine(engine, didClientRoleChanged: old, newRole: new, newRoleOptions: options)
        case .didLocalUserRegistered(let account, let uid):
            delegate.rtcEngine(engine, didLocalUserRegisteredWithUserId: uid, userAccount: account)
        case .didUserInfoUpdated(let uid, let account):
            let info = AgoraUserInfo()
            info.uid = uid
            info.userAccount = account
            delegate.rtcEngine(engine, didUserInfoUpdatedWithUserId: uid, userInfo: info)
        case .reportRtcStats(let stats):
            delegate.rtcEngine(engine, reportRtcStats: stats)
        case .networkQuality(let uid, let tx, let rx):
            delegate.rtcEngine(engine, networkQuality: uid, txQuality: tx, rxQuality: rx)
        case .reportAudioVolumeIndication(let speakers, let totalVolume):
            delegate.rtcEngine(engine, reportAudioVolumeIndicationOfSpeakers: speakers, totalVolume: totalVolume)
        case .activeSpeaker(let uid):
            delegate.rtcEngine(engine, activeSpeaker: uid)
        case .remoteVideoStateChanged(let uid, let state, let reason, let elapsed):
            delegate.rtcEngine(engine, remoteVideoStateChangedOfUid: uid, state: state, reason: reason, elapsed: elapsed)
        case .connectionInterrupted:
            delegate.rtcEngineConnectionDidInterrupted(engine)
        case .connectionLost:
            delegate.rtcEngineConnectionDidLost(engine)
        case .connectionBanned:
            delegate.rtcEngineConnectionDidBanned(engine)
        case .localAudioStateChanged(let state, let reason):
            delegate.rtcEngine(engine, localAudioStateChanged: state, reason: reason)
            delegate.rtcEngine(engine, localAudioStateChanged: state, error: AgoraAudioLocalError(rawValue: reason.rawValue) ?? .failure)
        case .localVideoStateChanged(let state, let reason, let source):
            delegate.rtcEngine(engine, localVideoStateChangedOf: state, reason: reason, sourceType: source)
            delegate.rtcEngine(engine, localVideoStateChangedOf: state,
                               error: AgoraLocalVideoStreamError(rawValue: reason.rawValue) ?? .failure, sourceType: source)
        case .localAudioStats(let stats):
            delegate.rtcEngine(engine, localAudioStats: stats)
        case .remoteVideoStats(let stats):
            delegate.rtcEngine(engine, remoteVideoStats: stats)
        case .remoteAudioStats(let stats):
            delegate.rtcEngine(engine, remoteAudioStats: stats)
        case .networkTypeChanged(let type):
            delegate.rtcEngine(engine, networkTypeChanged: type)
        case .didOccurWarning(let code):
            delegate.rtcEngine(engine, didOccurWarning: code)
        case .snapshotTaken(let uid, let path, let width, let height, let code):
            delegate.rtcEngine(engine, snapshotTaken: uid, filePath: path, width: width, height: height, errCode: code)
        case .remoteAudioStateChanged(let uid, let state, let reason, let elapsed):
            delegate.rtcEngine(engine, remoteAudioStateChangedOfUid: uid, state: state, reason: reason, elapsed: elapsed)
        case .localVideoStats(let stats, let source):
            delegate.rtcEngine(engine, localVideoStats: stats, sourceType: source)
        case .lastmileQuality(let quality):
            delegate.rtcEngine(engine, lastmileQuality: quality)
        case .lastmileProbeTest(let result):
            delegate.rtcEngine(engine, lastmileProbeTest: result)
        case .didProxyConnected(let channel, let uid, let proxyType, let elapsed):
            delegate.rtcEngine(engine, didProxyConnected: channel, withUid: uid, proxyType: proxyType, localProxyIp: "",
                               elapsed: elapsed)
        case .videoRenderingTracingResult(let uid, let event, let info):
            delegate.rtcEngine(engine, videoRenderingTracingResultOfUid: uid, currentEvent: event, tracingInfo: info)
        case .simulatorNotice(let notice):
            delegate.rtcEngine(engine, simulatorNotice: notice)
        }
    }
}
