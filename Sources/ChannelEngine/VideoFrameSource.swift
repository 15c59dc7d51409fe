/// One pixel of synthetic video.
public struct Pixel: Sendable, Equatable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// Perceived brightness, 0...255 (Rec. 601 weights).
    public var luminance: UInt8 {
        UInt8((UInt32(red) * 299 + UInt32(green) * 587 + UInt32(blue) * 114) / 1000)
    }
}

/// A frame of synthetic video: `width` × `height` pixels, row by row.
public struct VideoFrame: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var pixels: [Pixel]

    /// A black frame of this size.
    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        pixels = [Pixel](repeating: Pixel(red: 0, green: 0, blue: 0), count: self.width * self.height)
    }

    public subscript(x: Int, y: Int) -> Pixel { pixels[y * width + x] }
}

/// The synthetic camera of one user: a pattern of its own (chosen by uid) that moves with time and
/// freezes from `frozenAt` on, while the user's link is silent.
public struct VideoFrameSource: Sendable, Equatable {
    public enum Pattern: Int, Sendable, CaseIterable {
        case stripes, rings, bouncingBall, checkerboard
    }

    public let uid: UInt
    public let pattern: Pattern
    /// When the picture stopped moving; nil while live.
    public let frozenAt: Duration?
    private let hue: Int

    public init(uid: UInt, frozenAt: Duration? = nil) {
        self.uid = uid
        let mixed = Self.mix(UInt64(uid))
        pattern = Pattern(rawValue: Int(mixed % 4))!
        hue = Int((mixed >> 8) % 360)
        self.frozenAt = frozenAt
    }

    public var isFrozen: Bool { frozenAt != nil }

    /// The picture at `time` (frozen time if frozen), `width` × `height` pixels.
    public func frame(at time: Duration, width: Int, height: Int) -> VideoFrame {
        var frame = VideoFrame(width: width, height: height)
        render(at: time, into: &frame)
        return frame
    }

    /// Renders into `frame`, reusing its storage; `frame.width` and `frame.height` give the size.
    public func render(at time: Duration, into frame: inout VideoFrame) {
        let (width, height) = (frame.width, frame.height)
        let count = width * height
        if frame.pixels.count != count {
            frame.pixels = [Pixel](repeating: Pixel(red: 0, green: 0, blue: 0), count: count)
        }
        guard count > 0 else { return }
        let shown = min(time, frozenAt ?? time).components
        let ms = Int(shown.seconds) * 1000 + Int(shown.attoseconds / 1_000_000_000_000_000)
        let base = Self.color(hue: hue)
        let accent = Self.color(hue: (hue + 150) % 360)
        let dark = Pixel(red: base.red / 5, green: base.green / 5, blue: base.blue / 5)
        frame.pixels.withUnsafeMutableBufferPointer { pixels in
            switch pattern {
            case .stripes:
                let shift = ms / 40
                let band = max(2, width / 8)
                for y in 0..<height {
                    for x in 0..<width {
                        pixels[y * width + x] = ((x + y + shift) / band) % 2 == 0 ? base : dark
                    }
                }
            case .rings:
                let (cx, cy) = (width / 2, height / 2)
                let travel = ms / 70
                let scale = max(1, (width + height) / 24)
                for y in 0..<height {
                    let dy = (y - cy) * 2
                    for x in 0..<width {
                        let dx = x - cx
                        let ring = ((Self.isqrt(dx * dx + dy * dy) + travel) / scale) & 3
                        pixels[y * width + x] = ring == 0 ? accent : ring == 2 ? base : dark
                    }
                }
            case .bouncingBall:
                let radius = max(1, min(width, height * 2) / 6)
                let bx = Self.bounce(ms / 25, over: max(1, width - 2 * radius)) + radius
                let by = Self.bounce(ms / 35, over: max(1, height - radius)) + radius / 2
                for y in 0..<height {
                    let dy = (y - by) * 2
                    let shade = UInt8(truncatingIfNeeded: 40 + 120 * y / max(1, height))
                    let row = Pixel(red: dark.red &+ shade / 4, green: dark.green &+ shade / 4, blue: dark.blue &+ shade / 3)
                    for x in 0..<width {
                        let dx = x - bx
                        pixels[y * width + x] = dx * dx + dy * dy <= radius * radius ? accent : row
                    }
                }
            case .checkerboard:
                let size = max(2, width / 10)
                let dx = ms / 50, dy = ms / 90
                for y in 0..<height {
                    for x in 0..<width {
                        pixels[y * width + x] = (((x + dx) / size) + ((y * 2 + dy) / size)) % 2 == 0 ? base : accent
                    }
                }
            }
        }
    }

    private static func bounce(_ step: Int, over span: Int) -> Int {
        let period = 2 * span
        let position = step % period
        return position < span ? position : period - position
    }

    private static func isqrt(_ value: Int) -> Int {
        guard value > 0 else { return 0 }
        var root = Int(Double(value).squareRoot())
        while root * root > value { root -= 1 }
        return root
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A saturated colour for a hue in degrees.
    private static func color(hue: Int) -> Pixel {
        let sector = hue / 60
        let rising = UInt8(hue % 60 * 255 / 60)
        let falling = 255 - rising
        switch sector {
        case 0: return Pixel(red: 255, green: rising, blue: 40)
        case 1: return Pixel(red: falling, green: 255, blue: 40)
        case 2: return Pixel(red: 40, green: 255, blue: rising)
        case 3: return Pixel(red: 40, green: falling, blue: 255)
        case 4: return Pixel(red: rising, green: 40, blue: 255)
        default: return Pixel(red: 255, green: 40, blue: falling)
        }
    }
}

extension AgoraRtcEngineKit {
    /// The video of a publishing user: the local user (a broadcaster with video on) or an announced
    /// remote user; nil for anyone else. Remote video freezes while their link or ours is down.
    public func videoSource(forUid uid: UInt) -> VideoFrameSource? {
        for channel in [main].compactMap({ $0 }) + exChannels {
            if channel.connection.localUid == uid {
                let publishing = videoEnabled && (previewing || channel.isInChannel) && channel.role == .broadcaster
                return publishing ? VideoFrameSource(uid: uid) : nil
            }
            if channel.announced.contains(uid) {
                let silent = worlds[channel.connection.channelId]?.peer(uid)?.silentSince
                let frozen = [silent, networkDownSince].compactMap { $0 }.min()
                return VideoFrameSource(uid: uid, frozenAt: frozen)
            }
        }
        return nil
    }

    /// Time on the engine's clock, which video sources are drawn at.
    public var now: Duration { timers.now }
}
