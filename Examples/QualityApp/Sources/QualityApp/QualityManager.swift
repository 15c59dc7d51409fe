import ChannelEngine
import GuideHarness

// Only ChannelEngine (and the UIKit stand-in) imported: Foundation's NSObject, Data and JSONEncoder come with it, as
// they come with AgoraRtcKit.

/// The base manager, as the samples' AgoraManager: it owns the engine and conforms to the delegate in an extension.
/// The one change from the samples: every callback a subclass implements is declared here, in the class's body, and
/// the subclass marks its own `override`. Swift on Linux has no Objective-C dispatch, so a callback only a subclass
/// declares is never called, and one declared in an extension cannot be overridden.
@MainActor
open class QualityManager: NSObject {
    public let engine: AgoraRtcEngineKit
    /// What the manager last heard, as a SwiftUI view would show it.
    public private(set) var state: AgoraConnectionState = .disconnected

    public init(appId: String) {
        let config = AgoraRtcEngineConfig()
        config.appId = appId
        config.audioScenario = .gameStreaming
        engine = AgoraRtcEngineKit.sharedEngine(with: config, delegate: nil)
        super.init()
        engine.delegate = self
    }

    /// The last probe's figures as JSON, kept for a screen to show.
    public var probeReport = Data()

    public func keep(_ result: AgoraLastmileProbeResult) {
        struct Report: Encodable { let state: String, rtt: UInt, uplinkKbps: UInt, downlinkKbps: UInt }
        let report = Report(state: result.state.name, rtt: result.rtt, uplinkKbps: result.uplinkReport.availableBandwidth,
                            downlinkKbps: result.downlinkReport.availableBandwidth)
        probeReport = (try? JSONEncoder().encode(report)) ?? Data()
    }

    open func rtcEngine(_ engine: AgoraRtcEngineKit, connectionChangedTo state: AgoraConnectionState,
                        reason: AgoraConnectionChangedReason) {
        self.state = state
    }
    open func rtcEngine(_ engine: AgoraRtcEngineKit, didProxyConnected channel: String, withUid uid: UInt,
                        proxyType: AgoraProxyType, localProxyIp: String, elapsed: Int) {}
    open func rtcEngine(_ engine: AgoraRtcEngineKit, lastmileQuality quality: AgoraNetworkQuality) {}
    open func rtcEngine(_ engine: AgoraRtcEngineKit, lastmileProbeTest result: AgoraLastmileProbeResult) {}
    open func rtcEngine(_ engine: AgoraRtcEngineKit, localVideoStats stats: AgoraRtcLocalVideoStats,
                        sourceType: AgoraVideoSourceType) {}
    open func rtcEngine(_ engine: AgoraRtcEngineKit, remoteVideoStats stats: AgoraRtcRemoteVideoStats) {}
}

extension QualityManager: AgoraRtcEngineDelegate {
    public func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinChannel channel: String, withUid uid: UInt, elapsed: Int) {
        Guide.say("didJoinChannel \(channel) \(uid)")
    }

    public func rtcEngine(_ engine: AgoraRtcEngineKit, didLeaveChannelWith stats: AgoraChannelStats) {
        Guide.say("didLeaveChannelWith")
    }

    /// The 4.2-era shape, which older managers still implement.
    public func rtcEngine(_ engine: AgoraRtcEngineKit, localAudioStateChanged state: AgoraAudioLocalState,
                          error: AgoraAudioLocalError) {
        Guide.say("localAudioStateChanged \(state.name) error \(error.name)")
    }
}
