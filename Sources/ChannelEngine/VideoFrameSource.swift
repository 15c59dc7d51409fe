import SeededRandom
import Timers

/// One pixel of synthetic video.
public struct Pixel: Sendable, Hashable {
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
        let weighted: UInt32 = UInt32(red) * 299 + UInt32(green) * 587 + UInt32(blue) * 114
        return UInt8(weighted / 1000)
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

/// The synthetic camera of one user: a still backdrop of its own (chosen by uid) with a ball that moves across
/// it, as a face moves in front of a room; the ball stops from `frozenAt` on, while the user's link is silent.
/// Like real video, one frame differs from the next only where something moves, so a terminal showing it is sent
/// little more than the ball's edges.
public struct VideoFrameSource: Sendable, Equatable {
    public enum Pattern: Int, Sendable, CaseIterable {
        case stripes, rings, gradient, checkerboard
    }

    public let uid: UInt
    public let pattern: Pattern
    /// When the picture stopped moving; nil while live.
    public let frozenAt: Duration?
    private let hue: Int
    /// Where on its path the ball starts, so that users' balls do not move in step.
    private let phase: Int

    public init(uid: UInt, frozenAt: Duration? = nil) {
        self.uid = uid
        let mixed = SplitMix64.mix(UInt64(uid))
        pattern = Pattern(rawValue: Int(mixed % 4))!
        hue = Int((mixed >> 8) % 360)
        phase = Int((mixed >> 24) % 100_000)
        self.frozenAt = frozenAt
    }

    public var isFrozen: Bool { frozenAt != nil }

    /// The picture at `time` (frozen time if frozen), `width` × `height` pixels.
    public func frame(at time: Duration, width: Int, height: Int, pixelShape: PixelShape = .square) -> VideoFrame {
        var frame = VideoFrame(width: width, height: height)
        render(at: time, into: &frame, pixelShape: pixelShape)
        return frame
    }

    /// How a pixel will look on screen: `width` by `height` in some common unit, so that circles stay round.
    public struct PixelShape: Sendable, Equatable {
        public var width: Int
        public var height: Int

        public init(width: Int, height: Int) {
            self.width = max(1, width)
            self.height = max(1, height)
        }

        public static let square = PixelShape(width: 1, height: 1)
    }

    /// Speed of the ball, in pixel-shape units per second across and down.
    static let speed = (across: 12, down: 7)

    /// Renders into `frame`, reusing its storage; `frame.width` and `frame.height` give the size.
    public func render(at time: Duration, into frame: inout VideoFrame, pixelShape: PixelShape = .square) {
        let (width, height) = (frame.width, frame.height)
        let count = width * height
        if frame.pixels.count != count {
            frame.pixels = [Pixel](repeating: Pixel(red: 0, green: 0, blue: 0), count: count)
        }
        guard count > 0 else { return }
        let ms = Int(min(time, frozenAt ?? time).wholeMilliseconds) + phase
        let (pw, ph) = (pixelShape.width, pixelShape.height)
        // The picture in units where a pixel is pw wide and ph tall.
        let (unitsWide, unitsTall) = (width * pw, height * ph)
        let base = Self.color(hue: hue)
        let accent = Self.color(hue: (hue + 150) % 360)
        let dark = Pixel(red: base.red / 5, green: base.green / 5, blue: base.blue / 5)
        let middle = Pixel(red: base.red / 2, green: base.green / 2, blue: base.blue / 2)
        let radius = max(1, min(unitsWide, unitsTall) / 6)
        let ballX = Self.bounce(ms * Self.speed.across / 1000, over: max(1, unitsWide - 2 * radius)) + radius
        let ballY = Self.bounce(ms * Self.speed.down / 1000, over: max(1, unitsTall - 2 * radius)) + radius
        let (centreX, centreY) = (unitsWide / 2, unitsTall / 2)
        let band = max(2, unitsWide / 8), square = max(2, unitsWide / 10)
        // Rings: the colour at each whole distance from the centre, looked up rather than divided out per pixel.
        let ringWidth = max(1, (unitsWide + unitsTall) / 24)
        let ringColors = pattern == .rings
            ? (0...(unitsWide + unitsTall)).map { distance in [middle, base, dark][(distance / ringWidth) % 3] } : []
        // A backdrop row depends only on its key (where it falls in the stripes or squares, or its distance from the
        // centre): each key is drawn once and copied to the rows that share it.
        let keys = switch pattern {
        case .stripes: 2 * band
        case .rings: unitsTall + 1
        case .gradient: height
        case .checkerboard: 2
        }
        var drawnRow = [Int](repeating: -1, count: keys)
        // Pixel x of a ring row lies as far from the centre as pixel `mirror - x` (-1: no pixel does).
        let doubledCentre = 2 * centreX - pw / 2 * 2
        let mirror = doubledCentre % pw == 0 ? doubledCentre / pw : -1
        frame.pixels.withUnsafeMutableBufferPointer { pixels in
            for y in 0..<height {
                let row = UnsafeMutableBufferPointer(rebasing: pixels[(y * width)..<(y * width + width)])
                let uy = y * ph + ph / 2
                let key = switch pattern {
                case .stripes: (pw / 2 + uy) % (2 * band)
                case .rings: abs(uy - centreY)
                case .gradient: y
                case .checkerboard: (uy / square) % 2
                }
                if drawnRow[key] >= 0 {
                    row.baseAddress!.update(from: pixels.baseAddress! + drawnRow[key] * width, count: width)
                    continue
                }
                drawnRow[key] = y
                switch pattern {
                case .stripes:
                    Self.alternate(row, from: pw / 2 + uy, step: pw, every: band, base, dark)
                case .rings:
                    let ry = uy - centreY
                    var root = 0
                    for x in 0..<width {
                        let across = mirror - x
                        if across >= 0, across < x {
                            row[x] = row[across]
                            continue
                        }
                        let rx = x * pw + pw / 2 - centreX
                        let squared = rx &* rx &+ ry &* ry
                        // The distance changes little from one pixel to the next: walk the root instead of taking it.
                        while (root &+ 1) &* (root &+ 1) <= squared { root &+= 1 }
                        while root &* root > squared { root &-= 1 }
                        row[x] = ringColors[root]
                    }
                case .gradient:
                    let shade = UInt8(truncatingIfNeeded: 40 + 120 * y / max(1, height))
                    row.update(repeating: Pixel(red: dark.red &+ shade / 4, green: dark.green &+ shade / 4, blue: dark.blue &+ shade / 3))
                case .checkerboard:
                    let odd = key == 1
                    Self.alternate(row, from: pw / 2, step: pw, every: square, odd ? dark : middle, odd ? middle : dark)
                }
            }
            // The ball over the backdrop, row by row: the pixels whose centres lie within `radius` of the ball's centre.
            for y in 0..<height {
                let dy = y * ph + ph / 2 - ballY
                let reach = radius * radius - dy * dy
                guard reach >= 0 else { continue }
                var half = Self.isqrt(reach)
                while (half + 1) * (half + 1) <= reach { half += 1 }
                // Centre ux = x * pw + pw / 2 within [ballX - half, ballX + half].
                let first = max(0, Self.ceilDivide(ballX - half - pw / 2, pw))
                let last = min(width - 1, Self.floorDivide(ballX + half - pw / 2, pw))
                if first <= last { UnsafeMutableBufferPointer(rebasing: pixels[(y * width + first)...(y * width + last)]).update(repeating: accent) }
            }
        }
    }

    /// Fills `row` with `even` and `odd` in turns of `every` units, pixel x sitting at unit `from + x * step`.
    private static func alternate(_ row: UnsafeMutableBufferPointer<Pixel>, from: Int, step: Int, every: Int, _ even: Pixel, _ odd: Pixel) {
        var isOdd = (from / every) % 2 == 1
        var edge = (from / every + 1) * every
        var x = 0
        while x < row.count {
            // The first pixel at or past `edge`; the ones before it share a colour.
            let end = min(row.count, (edge - from + step - 1) / step)
            if end > x { UnsafeMutableBufferPointer(rebasing: row[x..<end]).update(repeating: isOdd ? odd : even) }
            x = max(x, end)
            isOdd.toggle()
            edge += every
        }
    }

    private static func floorDivide(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
    private static func ceilDivide(_ a: Int, _ b: Int) -> Int { -floorDivide(-a, b) }

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
        locked {
            if let main, let found = videoSource(forUid: uid, in: main) { return found }
            for channel in exChannels {
                if let found = videoSource(forUid: uid, in: channel) { return found }
            }
            return nil
        }
    }

    /// The answer for `uid` if `channel` knows it (`.some(nil)`: its local user, not publishing); nil if not.
    func videoSource(forUid uid: UInt, in channel: Channel) -> VideoFrameSource?? {
        if channel.connection.localUid == uid {
            let publishing = cameraOn && (previewing || channel.isInChannel) && channel.role == .broadcaster
            return .some(publishing ? VideoFrameSource(uid: uid) : nil)
        }
        guard channel.announced.contains(uid) else { return nil }
        // A hub user's picture is what they send (`receivedVideo(forUid:)`), not a synthetic one.
        if usesHub(channel), isHubPeer(uid) { return .some(nil) }
        let silent = worlds[channel.connection.channelId]?.peer(uid)?.silentSince
        let frozen = switch (silent, networkDownSince) {
        case let (silent?, down?): min(silent, down)
        case let (silent, down): silent ?? down
        }
        return .some(VideoFrameSource(uid: uid, frozenAt: frozen))
    }

    /// Time on the engine's clock, which video sources are drawn at.
    public var now: Duration { timers.now }
}
