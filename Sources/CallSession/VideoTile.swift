import ChannelEngine

/// Where one user's video goes: the `view` of the canvas the session sets up for that user, as a guide app gives
/// the engine a view; the call screen draws the user's tile from it.
public final class VideoTile: Sendable {
    /// The user, as the canvas names them: 0 for the local user.
    public let uid: UInt

    init(uid: UInt) { self.uid = uid }

    /// A canvas showing this tile.
    var canvas: AgoraRtcVideoCanvas {
        let canvas = AgoraRtcVideoCanvas()
        canvas.uid = uid
        canvas.renderMode = .hidden
        canvas.view = self
        return canvas
    }
}
