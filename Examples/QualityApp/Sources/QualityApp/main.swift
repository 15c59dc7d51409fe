import ChannelEngine
import GuideHarness

/// The app's one manager, on the main actor as a SwiftUI app keeps it.
@MainActor
enum App {
    static var manager: CallQualityManager?
}

// The probe runs its 30 s before the call; the app leaves after --seconds.
Guide.run(
    appear: { MainActor.assumeIsolated { App.manager = CallQualityManager(appId: Guide.appId); App.manager?.setUp() } },
    disappear: { MainActor.assumeIsolated { App.manager?.leave() } },
    destroy: { AgoraRtcEngineKit.destroy() }
)
