// A call manager in the shape of video-sdk-samples-ios's AgoraManager and the engine code of API-Examples' screens,
// written for this repository with UIKit removed: a plain NSObject that owns the shared engine and is its delegate (in
// its own declaration), fetches tokens with URLSession, and calls the engine from URLSession's completions and from
// DispatchQueue.global(). It joins with a user account once the account is registered, joins a second channel through
// an AgoraRtcConnection built property by property, and makes the non-token calls real screens make.
// Guide.say and Guide.call lines (GuideHarness) are what the test reads: each callback, and each call's result.
import ChannelEngine
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GuideHarness

class CallManager: NSObject, AgoraRtcEngineDelegate {
    let channelName = "test"
    let userAccount = "alice"
    var agoraEngine: AgoraRtcEngineKit!
    /// The second channel, joined as an audience member through its own delegate.
    let secondChannel = SecondChannel()
    /// Who else hears the callbacks: the screen, as VideoUIKit forwards them.
    weak var rtcDelegate: AgoraRtcEngineDelegate?
    let localView = PlainView()
    private var joinedWithAccount = false
    private var roleChanges = 0
    private var reported: Set<String> = []

    // MARK: The engine and the settings a screen makes before joining

    /// Called on a background queue: nothing here needs the main thread.
    func setUpEngine() {
        Guide.batch {
            agoraEngine = AgoraRtcEngineKit.sharedEngine(withAppId: Guide.appId, delegate: self)
            Guide.say("= sharedEngine(withAppId:delegate:) returned\(Self.thread)")
            Guide.call("setLogFile") { agoraEngine.setLogFile(NSTemporaryDirectory() + "agorasdk.log") }
            Guide.call("setChannelProfile") { agoraEngine.setChannelProfile(.liveBroadcasting) }
            Guide.call("setClientRole") { agoraEngine.setClientRole(.broadcaster) }
            Guide.call("enableVideo") { agoraEngine.enableVideo() }
            Guide.call("enableAudio") { agoraEngine.enableAudio() }
            let encoder = AgoraVideoEncoderConfiguration(size: CGSize(width: 640, height: 360),
                                                         frameRate: AgoraVideoFrameRate.fps15.rawValue,
                                                         bitrate: AgoraVideoBitrateStandard, orientationMode: .fixedPortrait,
                                                         mirrorMode: .auto)
            Guide.call("setVideoEncoderConfiguration") { agoraEngine.setVideoEncoderConfiguration(encoder) }
            Guide.call("setDefaultAudioRouteToSpeakerphone") { agoraEngine.setDefaultAudioRouteToSpeakerphone(true) }
            Guide.call("enableDualStreamMode") { agoraEngine.enableDualStreamMode(true) }
            Guide.call("setParameters") { agoraEngine.setParameters(#"{"che.video.lowBitRateStreamParameter":{"width":320}}"#) }
            Guide.call("setParameters (not JSON)") { agoraEngine.setParameters("che.video.lowBitRateStreamParameter=320") }
            Guide.call("enableInstantMediaRendering") { agoraEngine.enableInstantMediaRendering() }
            Guide.call("startMediaRenderingTracing") { agoraEngine.startMediaRenderingTracing() }
            Guide.call("takeSnapshot (no path)") { Int32(agoraEngine.takeSnapshot(0, filePath: "")) }
            let canvas = AgoraRtcVideoCanvas()
            canvas.uid = 0
            canvas.view = localView
            canvas.renderMode = .hidden
            canvas.backgroundColor = 0x0000_00FF
            Guide.call("setupLocalVideo") { agoraEngine.setupLocalVideo(canvas) }
            Guide.call("startPreview") { agoraEngine.startPreview() }
            Guide.call("enableLocalAudio") { agoraEngine.enableLocalAudio(true) }
            Guide.call("enableLocalVideo") { agoraEngine.enableLocalVideo(true) }
            Guide.call("registerLocalUserAccount") { agoraEngine.registerLocalUserAccount(userAccount, appId: Guide.appId) }
        }
    }

    static var thread: String { Thread.isMainThread ? " on the main thread" : " on a background thread" }

    // MARK: Tokens (agora-token-service's paths, which `tokencall serve` answers)

    func fetchToken(channel: String, kind: String, user: String, completion: @escaping (String?) -> Void) {
        guard let url = URL(string: "\(Guide.serverURL)/rtc/\(channel)/publisher/\(kind)/\(user)/") else { return completion(nil) }
        URLSession.shared.dataTask(with: url) { data, _, _ in
            let json = data.flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]
            completion(json?["rtcToken"] as? String)
        }.resume()
    }

    // MARK: Callbacks of the main connection

    func rtcEngine(_ engine: AgoraRtcEngineKit, didLocalUserRegisteredWithUserId uid: UInt, userAccount: String) {
        Guide.say("didLocalUserRegisteredWithUserId \(userAccount)")
        // The join registers the account again; join once.
        guard !joinedWithAccount else { return }
        joinedWithAccount = true
        fetchToken(channel: channelName, kind: "userAccount", user: userAccount) { token in
            guard let token else { return Guide.say("could not fetch a token") }
            let options = AgoraRtcChannelMediaOptions()
            options.clientRoleType = .broadcaster
            options.publishCameraTrack = true
            options.publishMicrophoneTrack = true
            options.autoSubscribeAudio = true
            options.autoSubscribeVideo = true
            Guide.call("joinChannel", detail: Self.thread) {
                self.agoraEngine.joinChannel(byToken: token, channelId: self.channelName, userAccount: userAccount,
                                             mediaOptions: options)
            }
        }
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinChannel channel: String, withUid uid: UInt, elapsed: Int) {
        Guide.say("didJoinChannel \(channel)")
        rtcDelegate?.rtcEngine(engine, didJoinChannel: channel, withUid: uid, elapsed: elapsed)
        DispatchQueue.global().async { self.secondChannel.join(engine: self.agoraEngine) }
        DispatchQueue.global().async { self.becomeAudience(latency: .lowLatency) }
    }

    private func becomeAudience(latency: AgoraAudienceLatencyLevelType) {
        let options = AgoraClientRoleOptions()
        options.audienceLatencyLevel = latency
        Guide.call("setClientRole \(latency.name)", detail: Self.thread) { agoraEngine.setClientRole(.audience, options: options) }
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, didClientRoleChanged oldRole: AgoraClientRole, newRole: AgoraClientRole,
                   newRoleOptions: AgoraClientRoleOptions?) {
        Guide.say("didClientRoleChanged \(oldRole.name) \(newRole.name) \(newRoleOptions?.audienceLatencyLevel.name ?? "-")")
        roleChanges += 1
        // The next step once this change's callbacks are all out (the main queue's next turn), from another thread.
        let changes = roleChanges
        DispatchQueue.main.async { DispatchQueue.global().async { self.changeRole(after: changes) } }
    }

    /// Audience at low latency, then the same role at ultra-low latency (a change the SDK reports), then broadcaster.
    private func changeRole(after changes: Int) {
        switch changes {
        case 1: becomeAudience(latency: .ultraLowLatency)
        case 2: Guide.call("setClientRole broadcaster", detail: Self.thread) { agoraEngine.setClientRole(.broadcaster) }
        default: break
        }
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, connectionChangedTo state: AgoraConnectionState,
                   reason: AgoraConnectionChangedReason) {
        Guide.say("connectionChangedTo \(state.name) \(reason.name)")
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, tokenPrivilegeWillExpire token: String) {
        Guide.say("tokenPrivilegeWillExpire")
        fetchToken(channel: channelName, kind: "userAccount", user: userAccount) { token in
            guard let token else { return Guide.say("could not fetch a token") }
            Guide.call("renewToken", detail: Self.thread) { self.agoraEngine.renewToken(token) }
        }
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, renewTokenResult token: String, code: AgoraRenewTokenErrorCode) {
        Guide.say("renewTokenResult \(code.name)", after: "renewToken")
    }

    func rtcEngineRequestToken(_ engine: AgoraRtcEngineKit) {
        Guide.say("requestToken")
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, didOccurError errorCode: AgoraErrorCode) {
        Guide.say("didOccurError \(errorCode.rawValue)")
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, didOccurWarning warningCode: AgoraWarningCode) {
        Guide.say("didOccurWarning \(warningCode.rawValue)")
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, networkTypeChanged type: AgoraNetworkType) {
        Guide.say("networkTypeChanged \(type.name)")
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, localAudioStateChanged state: AgoraAudioLocalState, reason: AgoraAudioLocalReason) {
        Guide.say("localAudioStateChanged \(state.name) \(reason.name)")
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, localVideoStateChangedOf state: AgoraVideoLocalState,
                   reason: AgoraLocalVideoStreamReason, sourceType: AgoraVideoSourceType) {
        Guide.say("localVideoStateChanged \(state.name) \(reason.name)")
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinedOfUid uid: UInt, elapsed: Int) {
        Guide.say("didJoinedOfUid \(uid)")
        let canvas = AgoraRtcVideoCanvas()
        canvas.uid = uid
        canvas.view = PlainView()
        engine.setupRemoteVideo(canvas)
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, didOfflineOfUid uid: UInt, reason: AgoraUserOfflineReason) {
        Guide.say("didOfflineOfUid \(uid)")
        let canvas = AgoraRtcVideoCanvas()
        canvas.uid = uid
        engine.setupRemoteVideo(canvas)
    }

    // The statistics every 2 s: the first of each kind is printed.
    func rtcEngine(_ engine: AgoraRtcEngineKit, localAudioStats stats: AgoraRtcLocalAudioStats) {
        once("localAudioStats", "\(stats.numChannels) channel \(stats.sentSampleRate) Hz")
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, remoteVideoStats stats: AgoraRtcRemoteVideoStats) {
        once("remoteVideoStats", "\(stats.width)x\(stats.height) \(stats.rendererOutputFrameRate) fps")
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, remoteAudioStats stats: AgoraRtcRemoteAudioStats) {
        once("remoteAudioStats", "\(stats.numChannels) channel \(stats.receivedSampleRate) Hz")
    }

    private func once(_ kind: String, _ text: String) {
        guard reported.insert(kind).inserted else { return }
        Guide.say("stats \(kind) \(text)")
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, didLeaveChannelWith stats: AgoraChannelStats) {
        Guide.say("didLeaveChannelWith", after: "leaveChannel")
        rtcDelegate?.rtcEngine(engine, didLeaveChannelWith: stats)
    }

    // MARK: Leaving

    func leave() {
        Guide.batch {
            secondChannel.leave(engine: agoraEngine)
            Guide.call("stopPreview") { agoraEngine.stopPreview() }
            Guide.call("leaveChannel") { agoraEngine.leaveChannel { _ in Guide.say("leaveChannel block") } }
        }
    }

    func destroy() {
        DispatchQueue.global().async {
            AgoraRtcEngineKit.destroy()
            Guide.say("destroy\(Self.thread)")
        }
    }
}
