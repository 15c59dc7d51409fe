import ChannelEngine
import Dispatch
import Foundation
import GuideHarness

/// The screen: it hears the manager's callbacks as VideoUIKit's views do, forwarded with `rtcDelegate?.rtcEngine(…)`.
final class Screen: NSObject, AgoraRtcEngineDelegate {
    func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinChannel channel: String, withUid uid: UInt, elapsed: Int) {
        Guide.say("forwarded didJoinChannel \(channel)")
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, didLeaveChannelWith stats: AgoraChannelStats) {
        Guide.say("forwarded didLeaveChannelWith")
    }
}

// What the app does: make the manager wherever it likes (here off the main thread), leave after --seconds, destroy
// the engine a second later, from another thread.
let screen = Screen()
let manager = CallManager()
manager.rtcDelegate = screen
Guide.run(
    appear: { DispatchQueue.global().async { manager.setUpEngine() } },
    disappear: { manager.leave() },
    destroy: { manager.destroy() }
)
