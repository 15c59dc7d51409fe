import ChannelEngine
import GuideHarness

/// The guide's view controller with its slip fixed: the channel is joined as uid 1234, the uid its tokens are
/// fetched for. Everything else is the guide's code, inherited.
final class OneUidViewController: ViewController {
    override func joinChannel(token: String) {
        let option = AgoraRtcChannelMediaOptions()
        Guide.call("joinChannel") { agoraKit.joinChannel(byToken: token, channelId: "test", uid: 1234, mediaOptions: option) }
    }
}
