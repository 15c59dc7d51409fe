// The audio settings, streams, probes and proxies real apps set (`AgoraEnumerates.h`, `AgoraObjects.h`), with the
// header's Swift names and numbers.

/// How audio is encoded (`AgoraAudioProfile`).
public enum AgoraAudioProfile: Int, AgoraCode {
    case `default` = 0, speechStandard = 1, musicStandard = 2, musicStandardStereo = 3, musicHighQuality = 4
    case musicHighQualityStereo = 5
}

/// What the audio is tuned for (`AgoraAudioScenario`).
public enum AgoraAudioScenario: Int, AgoraCode {
    case `default` = 0, gameStreaming = 3, chatRoom = 5, chorus = 7, meeting = 8
}

/// Whether a low-quality second video stream is sent (`AgoraSimulcastStreamMode`).
public enum AgoraSimulcastStreamMode: Int, AgoraCode {
    case autoSimulcastStream = -1, disableSimulcastStream = 0, enableSimulcastStream = 1
}

/// Which of a remote user's streams to receive (`AgoraVideoStreamType`).
public enum AgoraVideoStreamType: Int, AgoraCode {
    case high = 0, low = 1
}

/// The cloud proxy an app asks for (`AgoraCloudProxyType`).
public enum AgoraCloudProxyType: Int, AgoraCode {
    case noneProxy = 0, udpProxy = 1, tcpProxy = 2
}

/// The proxy a connection went through, as `didProxyConnected` reports it (`AgoraProxyType`).
public enum AgoraProxyType: Int, AgoraCode {
    case noneProxyType = 0, udpProxyType = 1, tcpProxyType = 2, localProxyType = 3, tcpProxyAutoFallbackType = 4
    case httpProxyType = 5, httpsProxyType = 6
}

/// What the video is tuned for (`AgoraApplicationScenarioType`).
public enum AgoraApplicationScenarioType: Int, AgoraCode {
    case applicationGeneralScenario = 0, applicationMeetingScenario = 1, application1V1Scenario = 2
    case applicationLiveShowScenario = 3
}

/// A remote user's audio as `remoteAudioStateChangedOfUid` reports it (`AgoraAudioRemoteState`).
public enum AgoraAudioRemoteState: Int, AgoraCode {
    case stopped = 0, starting = 1, decoding = 2, frozen = 3, failed = 4
}

/// Why a remote user's audio state changed (`AgoraAudioRemoteReason`).
public enum AgoraAudioRemoteReason: Int, AgoraCode {
    case `internal` = 0, networkCongestion = 1, networkRecovery = 2, localMuted = 3, localUnmuted = 4
    case remoteMuted = 5, remoteUnmuted = 6, remoteOffline = 7
}

/// The 4.2-era error of `localAudioStateChanged(_:error:)` (`AgoraAudioLocalError`), the same numbers as the reason.
public enum AgoraAudioLocalError: Int, AgoraCode {
    case ok = 0, failure = 1, deviceNoPermission = 2, deviceBusy = 3, recordFailure = 4, encodeFailure = 5
}

/// The 4.2-era error of `localVideoStateChangedOf(_:error:sourceType:)` (`AgoraLocalVideoStreamError`).
public enum AgoraLocalVideoStreamError: Int, AgoraCode {
    case ok = 0, failure = 1, deviceNoPermission = 2, deviceBusy = 3, captureFailure = 4, codecNotSupport = 5
}

/// Which step of showing a remote user's first frame `videoRenderingTracingResultOfUid` reports (`AgoraMediaTraceEvent`).
public enum AgoraMediaTraceEvent: Int, AgoraCode {
    case videoFrameRendered = 0, videoFrameDecoded = 1
}

/// How a last-mile probe went (`AgoraLastmileProbeResultState`).
public enum AgoraLastmileProbeResultState: Int, AgoraCode {
    case complete = 1, incompleteNoBwe = 2, unavailable = 3
}

/// What `startLastmileProbeTest(_:)` probes (`AgoraLastmileProbeConfig`); bitrates in bps, 100 000 to 5 000 000.
public final class AgoraLastmileProbeConfig {
    public var probeUplink = false
    public var probeDownlink = false
    public var expectedUplinkBitrate: UInt = 0
    public var expectedDownlinkBitrate: UInt = 0

    public init() {}
}

/// One direction of a last-mile probe (`AgoraLastmileProbeOneWayResult`): loss in %, jitter in ms, bandwidth in Kbps.
public struct AgoraLastmileProbeOneWayResult: Sendable, Equatable {
    public var packetLossRate: UInt = 0
    public var jitter: UInt = 0
    public var availableBandwidth: UInt = 0

    public init() {}
}

/// What `lastmileProbeTest` reports (`AgoraLastmileProbeResult`); `rtt` in ms.
public struct AgoraLastmileProbeResult: Sendable, Equatable {
    public var state: AgoraLastmileProbeResultState = .unavailable
    public var rtt: UInt = 0
    public var uplinkReport = AgoraLastmileProbeOneWayResult()
    public var downlinkReport = AgoraLastmileProbeOneWayResult()

    public init() {}
}

/// An echo test's settings (`AgoraEchoTestConfiguration`); `view` is `AnyObject?`, as a canvas's is.
public final class AgoraEchoTestConfiguration {
    public var view: AnyObject?
    public var enableAudio = true
    public var enableVideo = true
    public var token: String?
    public var channelId: String?
    /// Seconds between recording and playing back, 2 to 10.
    public var intervalInSeconds = 2

    public init() {}
}

/// How long a remote user's first frame took to show (`AgoraVideoRenderingTracingInfo`), in ms from the tracing's start.
public struct AgoraVideoRenderingTracingInfo: Sendable, Equatable {
    public var elapsedTime = 0
    public var start2JoinChannel = 0
    public var join2JoinSuccess = 0
    public var joinSuccess2RemoteJoined = 0
    public var remoteJoined2SetView = 0
    public var remoteJoined2UnmuteVideo = 0
    public var remoteJoined2PacketReceived = 0

    public init() {}
}
