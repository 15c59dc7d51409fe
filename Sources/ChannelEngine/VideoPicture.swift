import HubProtocol

/// What a user's tile shows: the simulator's synthetic camera, or the latest frame a person on the hub sent.
public enum VideoPicture: Sendable, Equatable {
    case synthetic(VideoFrameSource)
    /// A frame received through the hub; `frozen` once their frames stopped coming.
    case received(VideoFrame, frozen: Bool)

    public var isFrozen: Bool {
        switch self {
        case .synthetic(let source): source.isFrozen
        case .received(_, let frozen): frozen
        }
    }

    /// Whether it is a simulated user's picture.
    public var isSynthetic: Bool {
        if case .synthetic = self { true } else { false }
    }

    /// The picture at `time`, `width` × `height` pixels: a synthetic one drawn for pixels of `pixelShape`, a received
    /// one stretched over them, each pixel taking the frame's pixel under its centre.
    public func frame(at time: Duration, width: Int, height: Int, pixelShape: VideoFrameSource.PixelShape = .square) -> VideoFrame {
        switch self {
        case .synthetic(let source):
            return source.frame(at: time, width: width, height: height, pixelShape: pixelShape)
        case .received(let received, _):
            var frame = VideoFrame(width: width, height: height)
            guard received.width > 0, received.height > 0 else { return frame }
            for y in 0..<frame.height {
                let row = (2 * y + 1) * received.height / (2 * frame.height) * received.width
                for x in 0..<frame.width {
                    frame.pixels[y * frame.width + x] = received.pixels[row + (2 * x + 1) * received.width / (2 * frame.width)]
                }
            }
            return frame
        }
    }
}

extension VideoFrame {
    /// A hub frame's cells as pixels.
    init(_ received: HubVideoFrame) {
        self.init(width: received.columns, height: received.rows)
        pixels = received.cells.map { Pixel(red: $0.red, green: $0.green, blue: $0.blue) }
    }
}

extension AgoraRtcEngineKit {
    /// What to draw for a user: the latest frame of a hub user, or the synthetic video of a publishing simulated
    /// user (`videoSource(forUid:)`); nil for anyone else.
    public func picture(forUid uid: UInt) -> VideoPicture? {
        locked {
            if let received = receivedVideo(forUid: uid) {
                return .received(VideoFrame(received), frozen: main?.remoteVideo[uid] == .frozen)
            }
            return videoSource(forUid: uid).map(VideoPicture.synthetic)
        }
    }
}
