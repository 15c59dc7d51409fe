@_exported import AgoraVocabulary

/// The channel profile (`AgoraChannelProfile`).
public enum AgoraChannelProfile: Int, AgoraCode {
    case communication = 0, liveBroadcasting = 1
}

/// Extra settings of a role change (`AgoraClientRoleOptions`): the latency level, which `didClientRoleChanged`
/// reports back; nothing else depends on it.
public final class AgoraClientRoleOptions {
    public var audienceLatencyLevel: AgoraAudienceLatencyLevelType = .ultraLowLatency

    public init() {}
}

/// An audience member's latency level (`AgoraAudienceLatencyLevelType`).
public enum AgoraAudienceLatencyLevelType: Int, AgoraCode {
    case lowLatency = 1, ultraLowLatency = 2
}

/// A video size in pixels.
public struct VideoSize: Sendable, Equatable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// What the simulator says that Agora's SDK does not: its own observations, marked as such.
public enum SimulatorNotice: Sendable, Equatable {
    /// The engine knows no App Certificate, so token signatures are not checked (said once).
    case signatureNotChecked
    /// A token was accepted; it expires at `expiresAt` (unix), `short` when 30 s or less remained.
    case tokenAccepted(expiresAt: Int64, short: Bool)
    /// Remote users now see the local user offline for this reason.
    case localUserOfflineForPeers(AgoraUserOfflineReason)
    /// The link was cut (`down`) or restored by a fault injection.
    case network(down: Bool)
    /// The link to the hub is open (again: the engine joins its channel anew).
    case hubConnected
    /// The link to the hub broke, for this reason; it is trying again.
    case hubLost(reason: String)
    /// The hub could not read or do what the engine sent it (its `error` message).
    case hubError(String)
    /// A hub user's video frame did not read (why, in words): dropped, and noted once per user and stay.
    case hubVideoUnreadable(uid: UInt, problem: String)
    /// The hub named more users than the engine announces (`AgoraRtcEngineKit.hubUserLimit`, given): those past it
    /// are not announced. Noted once per stay.
    case hubUsersPastLimit(Int)
    /// A call that means nothing to a simulation was checked and accepted; `arguments` as the app gave them, for
    /// people to read.
    case accepted(AcceptedCall, arguments: String)
    /// Remote users now see the local user's audio (or video) stream muted or resumed (`muteLocalAudioStream`,
    /// `muteLocalVideoStream`).
    case localMuteForPeers(audio: Bool, muted: Bool)
}

/// The SDK's methods that the simulator checks and records but that change nothing in it (no media, devices, logs or
/// servers to configure); each raw value is the method's Swift name.
public enum AcceptedCall: String, Sendable, CaseIterable {
    case setLogFile = "setLogFile(_:)"
    case setVideoEncoderConfiguration = "setVideoEncoderConfiguration(_:)"
    case setDefaultAudioRouteToSpeakerphone = "setDefaultAudioRouteToSpeakerphone(_:)"
    case enableInstantMediaRendering = "enableInstantMediaRendering()"
    case startMediaRenderingTracing = "startMediaRenderingTracing()"
    case startMediaRenderingTracingEx = "startMediaRenderingTracingEx(_:)"
    case preloadChannel = "preloadChannel(byToken:channelId:uid:)"
    case preloadChannelWithAccount = "preloadChannel(byToken:channelId:userAccount:)"
    case setParameters = "setParameters(_:)"
    case enableDualStreamMode = "enableDualStreamMode(_:)"
    case setAudioProfile = "setAudioProfile(_:)"
    case setAudioScenario = "setAudioScenario(_:)"
    case setVideoScenario = "setVideoScenario(_:)"
    case setDualStreamMode = "setDualStreamMode(_:)"
    case setRemoteVideoStream = "setRemoteVideoStream(_:type:)"
    case switchCamera = "switchCamera()"
    case adjustRecordingSignalVolume = "adjustRecordingSignalVolume(_:)"
    case adjustPlaybackSignalVolume = "adjustPlaybackSignalVolume(_:)"
    case enableInEarMonitoring = "enable(inEarMonitoring:)"
    case setInEarMonitoringVolume = "setInEarMonitoringVolume(_:)"
    case setLocalRenderTargetFps = "setLocalRenderTargetFps(_:targetFps:)"
    case setRemoteRenderTargetFps = "setRemoteRenderTargetFps(_:)"
    case muteLocalAudioStream = "muteLocalAudioStream(_:)"
    case muteLocalVideoStream = "muteLocalVideoStream(_:)"
    case setCloudProxy = "setCloudProxy(_:)"
    case startEchoTest = "startEchoTest(withConfig:)"
    case stopEchoTest = "stopEchoTest()"
    case setCameraCapturerConfiguration = "setCameraCapturerConfiguration(_:)"
    case setCameraStabilizationMode = "setCameraStabilizationMode(_:)"
    case enableVideoImageSource = "enableVideoImageSource(_:options:)"
    case addVideoWatermark = "addVideoWatermark(_:options:)"
    case clearVideoWatermarks = "clearVideoWatermarks()"
    case startLocalAudioMixer = "startLocalAudioMixer(_:)"
    case stopLocalAudioMixer = "stopLocalAudioMixer()"
}

/// A user's network quality as `networkQuality` reports it (`AgoraNetworkQuality`): 0 unknown … 6 down; 7 and 8
/// are the SDK's for a link it cannot measure and one it is still measuring, which the simulation never reports.
public enum AgoraNetworkQuality: Int, AgoraCode {
    case unknown = 0, excellent = 1, good = 2, poor = 3, bad = 4, vBad = 5, down = 6, unsupported = 7, detecting = 8
}

/// A remote user's video as `remoteVideoStateChangedOfUid` reports it (`AgoraVideoRemoteState`).
public enum AgoraVideoRemoteState: Int, AgoraCode {
    case stopped = 0, starting = 1, decoding = 2, frozen = 3, failed = 4
}

/// Why a remote user's video state changed (`AgoraVideoRemoteReason`); the cases the simulator gives.
public enum AgoraVideoRemoteReason: Int, AgoraCode {
    case `internal` = 0, congestion = 1, recovery = 2, localMuted = 3, localUnmuted = 4, remoteMuted = 5, remoteUnmuted = 6
    case remoteOffline = 7
}

/// The local audio's state (`AgoraAudioLocalState`), as `localAudioStateChanged` reports it.
public enum AgoraAudioLocalState: Int, AgoraCode {
    case stopped = 0, recording = 1, encoding = 2, failed = 3
}

/// Why the local audio's state changed (`AgoraAudioLocalReason`); the simulator's devices never fail, so it gives `.ok`.
public enum AgoraAudioLocalReason: Int, AgoraCode {
    case ok = 0, failure = 1, deviceNoPermission = 2, deviceBusy = 3, recordFailure = 4, encodeFailure = 5
}

/// The local video's state (`AgoraVideoLocalState`), as `localVideoStateChangedOf` reports it.
public enum AgoraVideoLocalState: Int, AgoraCode {
    case stopped = 0, capturing = 1, encoding = 2, failed = 3
}

/// Why the local video's state changed (`AgoraLocalVideoStreamReason`); the simulator gives `.ok`.
public enum AgoraLocalVideoStreamReason: Int, AgoraCode {
    case ok = 0, failure = 1, deviceNoPermission = 2, deviceBusy = 3, captureFailure = 4, codecNotSupport = 5
}

/// Where a video comes from (`AgoraVideoSourceType`); the simulator's local video is its camera.
public enum AgoraVideoSourceType: Int, AgoraCode {
    case camera = 0, cameraSecondary = 1, screen = 2, screenSecondary = 3, custom = 4, mediaPlayer = 5
}

/// The local network's type (`AgoraNetworkType`), as Swift imports it (`AgoraNetworkType4G` is `.type4G`).
public enum AgoraNetworkType: Int, AgoraCode {
    case unknown = -1, disconnected = 0, lan = 1, wifi = 2, type2G = 3, type3G = 4, type4G = 5, type5G = 6
}

/// Warnings the SDK recovers from by itself (`AgoraWarningCode`), with the header's numbers.
public enum AgoraWarningCode: Int, AgoraCode {
    case invalidView = 8, initVideo = 16, pending = 20, noAvailableChannel = 103, lookupChannelTimeout = 104
    case lookupChannelRejected = 105, openChannelTimeout = 106, openChannelRejected = 107, switchLiveVideoTimeout = 111
    case setClientRoleTimeout = 118, setClientRoleNotAuthorized = 119, openChannelInvalidTicket = 121
    case openChannelTryNextVos = 122, audioMixingOpenError = 701, admRuntimePlayoutWarning = 1014
    case admRuntimeRecordingWarning = 1016, admRecordAudioSilence = 1019, admPlaybackMalfunction = 1020
    case admRecordMalfunction = 1021, admInterruption = 1025, admRecordAudioLowlevel = 1031
    case admPlayoutAudioLowlevel = 1032, apmHowling = 1051, admGlitchState = 1052, admImproperSettings = 1053
}

/// The regions the SDK may connect to (`AgoraAreaCodeType`, `AgoraRtcEngineConfig.areaCode`); the simulated network
/// is everywhere, so it changes nothing.
public enum AgoraAreaCodeType: UInt, Sendable, CaseIterable {
    case cn = 0x1, na = 0x2, eur = 0x4, `as` = 0x8, jp = 0x10, `in` = 0x20, ru = 0x1000, global = 0xFFFF_FFFF
}

/// A user's uid and the account they joined with (`AgoraUserInfo`), as `didUserInfoUpdatedWithUserId` gives it.
public final class AgoraUserInfo {
    public var uid: UInt = 0
    public var userAccount: String?

    public init() {}
}
