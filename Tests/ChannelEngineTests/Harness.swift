import AccessToken
@testable import ChannelEngine
import Foundation
import HubProtocol
import TestSupport
import Testing


/// Records every callback with the engine time it arrived at, and can act on one as an app would: as the engine's
/// observer, or as a delegate through the Agora-named methods (ex connections have only a delegate).
@MainActor
final class Recorder: AgoraRtcEngineDelegate {
    /// Every callback, media and network reports included.
    var all: [(at: Duration, event: AgoraRtcEvent)] = []
    var react: ((AgoraRtcEngineKit, AgoraRtcEvent) -> Void)?
    private var depth = 0
    /// Channel and uid of the last join, which `didLeaveChannelWith` (statistics only) does not repeat.
    private var joined: (channel: String, uid: UInt) = ("", 0)
    private(set) var reentered = false

    /// The call's story: every callback but the media and network reports (`isMediaReport`), which come on their own
    /// schedule beside it and are read through `allEvents`.
    var log: [(at: Duration, event: AgoraRtcEvent)] { all.filter { !$0.event.isMediaReport } }
    var events: [AgoraRtcEvent] { log.map(\.event) }
    var allEvents: [AgoraRtcEvent] { all.map(\.event) }
    func count(_ name: String) -> Int { all.filter { $0.event.name == name }.count }
    func times(of name: String) -> [Duration] { all.filter { $0.event.name == name }.map(\.at) }
    var states: [AgoraRtcEvent] { events.filter { $0.name == "connectionStateChanged" } }
    func clear() { all = [] }

    /// Records the main connection's callbacks of `engine` through its observer.
    func observe(_ engine: AgoraRtcEngineKit) {
        engine.observer = { [unowned self, unowned engine] in record(engine, $0) }
    }

    private func record(_ engine: AgoraRtcEngineKit, _ event: AgoraRtcEvent) {
        depth += 1
        if depth > 1 { reentered = true }
        all.append((engine.now, event))
        react?(engine, event)
        depth -= 1
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinChannel channel: String, withUid uid: UInt, elapsed: Int) {
        joined = (channel, uid)
        record(engine, .didJoinChannel(channel: channel, uid: uid, elapsed: elapsed))
    }
    func rtcEngine(_ engine: AgoraRtcEngineKit, didRejoinChannel channel: String, withUid uid: UInt, elapsed: Int) {
        record(engine, .didRejoinChannel(channel: channel, uid: uid, elapsed: elapsed))
    }
    func rtcEngine(_ engine: AgoraRtcEngineKit, didLeaveChannelWith stats: AgoraChannelStats) {
        record(engine, .didLeaveChannel(channel: joined.channel, uid: joined.uid, stats: stats))
    }
    func rtcEngine(_ engine: AgoraRtcEngineKit, connectionChangedTo state: AgoraConnectionState, reason: AgoraConnectionChangedReason) {
        record(engine, .connectionStateChanged(state, reason: reason))
    }
    func rtcEngine(_ engine: AgoraRtcEngineKit, tokenPrivilegeWillExpire token: String) {
        record(engine, .tokenPrivilegeWillExpire(token: token))
    }
    func rtcEngineRequestToken(_ engine: AgoraRtcEngineKit) { record(engine, .requestToken) }
    func rtcEngine(_ engine: AgoraRtcEngineKit, renewTokenResult token: String, code: AgoraRenewTokenErrorCode) {
        record(engine, .renewTokenResult(token: token, code: code))
    }
    func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinedOfUid uid: UInt, elapsed: Int) {
        record(engine, .didJoinedOfUid(uid, elapsed: elapsed))
    }
    func rtcEngine(_ engine: AgoraRtcEngineKit, didOfflineOfUid uid: UInt, reason: AgoraUserOfflineReason) {
        record(engine, .didOfflineOfUid(uid, reason: reason))
    }
    func rtcEngine(_ engine: AgoraRtcEngineKit, firstRemoteVideoFrameOfUid uid: UInt, size: CGSize, elapsed: Int) {
        record(engine, .firstRemoteVideoFrame(uid: uid, size: VideoSize(width: Int(size.width), height: Int(size.height)),
                                              elapsed: elapsed))
    }
    func rtcEngine(_ engine: AgoraRtcEngineKit, didOccurError errorCode: AgoraErrorCode) {
        record(engine, .didOccurError(errorCode))
    }
    func rtcEngine(_ engine: AgoraRtcEngineKit, didClientRoleChanged oldRole: AgoraClientRole, newRole: AgoraClientRole,
                   newRoleOptions: AgoraClientRoleOptions?) {
        record(engine, .didClientRoleChanged(old: oldRole, new: newRole, latency: newRoleOptions?.audienceLatencyLevel))
    }
    func rtcEngine(_ engine: AgoraRtcEngineKit, didLocalUserRegisteredWithUserId uid: UInt, userAccount: String) {
        record(engine, .didLocalUserRegistered(account: userAccount, uid: uid))
    }
    func rtcEngine(_ engine: AgoraRtcEngineKit, didUserInfoUpdatedWithUserId uid: UInt, userInfo: AgoraUserInfo) {
        record(engine, .didUserInfoUpdated(uid: userInfo.uid, account: userInfo.userAccount ?? ""))
    }
    func rtcEngine(_ engine: AgoraRtcEngineKit, localAudioStateChanged state: AgoraAudioLocalState, reason: AgoraAudioLocalReason) {
        record(engine, .localAudioStateChanged(state, reason: reason))
    }
    func rtcEngine(_ engine: AgoraRtcEngineKit, localVideoStateChangedOf state: AgoraVideoLocalState,
                   reason: AgoraLocalVideoStreamReason, sourceType: AgoraVideoSourceType) {
        record(engine, .localVideoStateChanged(state, reason: reason, source: sourceType))
    }
    func rtcEngine(_ engine: AgoraRtcEngineKit, localAudioStats stats: AgoraRtcLocalAudioStats) { record(engine, .localAudioStats(stats)) }
    func rtcEngine(_ engine: AgoraRtcEngineKit, remoteVideoStats stats: AgoraRtcRemoteVideoStats) { record(engine, .remoteVideoStats(stats)) }
    func rtcEngine(_ engine: AgoraRtcEngineKit, remoteAudioStats stats: AgoraRtcRemoteAudioStats) { record(engine, .remoteAudioStats(stats)) }
    func rtcEngine(_ engine: AgoraRtcEngineKit, networkTypeChanged type: AgoraNetworkType) { record(engine, .networkTypeChanged(type)) }
    func rtcEngine(_ engine: AgoraRtcEngineKit, didOccurWarning warningCode: AgoraWarningCode) { record(engine, .didOccurWarning(warningCode)) }
    func rtcEngine(_ engine: AgoraRtcEngineKit, snapshotTaken uid: UInt, filePath: String, width: Int, height: Int, errCode: Int) {
        record(engine, .snapshotTaken(uid: uid, filePath: filePath, width: width, height: height, errCode: errCode))
    }
    func rtcEngine(_ engine: AgoraRtcEngineKit, reportRtcStats stats: AgoraChannelStats) {
        record(engine, .reportRtcStats(stats))
    }
    func rtcEngine(_ engine: AgoraRtcEngineKit, networkQuality uid: UInt, txQuality: AgoraNetworkQuality,
                   rxQuality: AgoraNetworkQuality) {
        record(engine, .networkQuality(uid: uid, tx: txQuality, rx: rxQuality))
    }
    func rtcEngine(_ engine: AgoraRtcEngineKit, reportAudioVolumeIndicationOfSpeakers speakers: [AgoraRtcAudioVolumeInfo],
                   totalVolume: Int) {
        record(engine, .reportAudioVolumeIndication(speakers: speakers, totalVolume: totalVolume))
    }
    func rtcEngine(_ engine: AgoraRtcEngineKit, activeSpeaker speakerUid: UInt) {
        record(engine, .activeSpeaker(uid: speakerUid))
    }
    func rtcEngine(_ engine: AgoraRtcEngineKit, remoteVideoStateChangedOfUid uid: UInt, state: AgoraVideoRemoteState,
                   reason: AgoraVideoRemoteReason, elapsed: Int) {
        record(engine, .remoteVideoStateChanged(uid: uid, state: state, reason: reason, elapsed: elapsed))
    }
    func rtcEngineConnectionDidInterrupted(_ engine: AgoraRtcEngineKit) { record(engine, .connectionInterrupted) }
    func rtcEngineConnectionDidLost(_ engine: AgoraRtcEngineKit) { record(engine, .connectionLost) }
    func rtcEngineConnectionDidBanned(_ engine: AgoraRtcEngineKit) { record(engine, .connectionBanned) }
    func rtcEngine(_ engine: AgoraRtcEngineKit, simulatorNotice notice: SimulatorNotice) {
        record(engine, .simulatorNotice(notice))
    }
}

extension AgoraRtcEvent {
    /// The reports of the media surface: local device states, media statistics, the network's type and warnings.
    var isMediaReport: Bool {
        switch self {
        case .localAudioStateChanged, .localVideoStateChanged, .localAudioStats, .localVideoStats, .remoteVideoStats, .remoteAudioStats,
             .networkTypeChanged, .didOccurWarning: true
        default: false
        }
    }
}

/// An engine on a manual clock with a recorder, and tokens built at the clock's wall time.
@MainActor
struct Harness {
    let clock: ManualClock
    let engine: AgoraRtcEngineKit
    let recorder = Recorder()

    init(certificate: String? = TestCredentials.certificate, remoteUsers: Int = 0, churn: Bool = false, seed: UInt64 = 7,
         profile: AgoraChannelProfile = .liveBroadcasting, appId: String = TestCredentials.appID, hub: (any HubLink)? = nil) {
        let clock = ManualClock(unixTime: 1_800_000_000)
        self.clock = clock
        let simulation = Simulation(appCertificate: certificate, clock: clock, unixTime: { clock.unixTime }, seed: seed,
                                    remoteUsers: remoteUsers, peerChurn: churn, hub: hub)
        engine = AgoraRtcEngineKit(config: AgoraRtcEngineConfig(appId: appId, channelProfile: profile, simulation: simulation),
                                   delegate: nil)
        recorder.observe(engine)
    }

    func token(channel: String = "test", uid: UInt32 = 42, expire: UInt32 = 600, privilegeExpire: UInt32? = nil,
               appId: String = TestCredentials.appID, signedWith: String = TestCredentials.certificate, issuedAgo: UInt32 = 0) -> String {
        try! AccessToken2.buildRTC(appID: appId, appCertificate: signedWith, channel: channel, user: .uid(uid),
                                   role: .publisher, tokenExpire: expire, privilegeExpire: privilegeExpire ?? expire,
                                   issuedAt: UInt32(clock.unixTime) - issuedAgo, salt: 1)
    }

    /// Joins "test" as uid 42 and lets the join complete.
    func join(expire: UInt32 = 600) async {
        #expect(engine.joinChannel(byToken: token(expire: expire), channelId: "test", uid: 42) == 0)
        await advance(1)
    }

    /// Lets the callbacks of the calls just made arrive, without moving time.
    func settle() async {
        await clock.advance(by: .zero)
    }

    func advance(_ seconds: Double) async {
        await clock.advance(by: .milliseconds(Int64(seconds * 1000)))
    }
}
