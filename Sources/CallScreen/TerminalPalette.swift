/// A colour as red, green and blue, 0–255 each.
public struct RGB: Hashable, Sendable {
    public var red, green, blue: UInt8

    public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
        (self.red, self.green, self.blue) = (red, green, blue)
    }

    /// `#rrggbb`.
    public var hex: String {
        let digits = Array("0123456789abcdef")
        return "#" + String([red, green, blue].flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }
}

/// What the palette indices the screen draws with look like: xterm's 256-colour palette (the 16 basic colours, the
/// 6×6×6 cube the video is quantized to, the grey ramp) and the colours a dark terminal uses by default. Pictures of
/// the screen take their colours from here.
public enum TerminalPalette {
    public static let defaultForeground = RGB(0xd0, 0xd0, 0xd0)
    public static let defaultBackground = RGB(0x1c, 0x1c, 0x1c)

    /// xterm's basic colours: black, red, green, yellow, blue, magenta, cyan, white, then their bright forms.
    private static let basic: [RGB] = [
        RGB(0x00, 0x00, 0x00), RGB(0xcd, 0x00, 0x00), RGB(0x00, 0xcd, 0x00), RGB(0xcd, 0xcd, 0x00),
        RGB(0x00, 0x00, 0xee), RGB(0xcd, 0x00, 0xcd), RGB(0x00, 0xcd, 0xcd), RGB(0xe5, 0xe5, 0xe5),
        RGB(0x7f, 0x7f, 0x7f), RGB(0xff, 0x00, 0x00), RGB(0x00, 0xff, 0x00), RGB(0xff, 0xff, 0x00),
        RGB(0x5c, 0x5c, 0xff), RGB(0xff, 0x00, 0xff), RGB(0x00, 0xff, 0xff), RGB(0xff, 0xff, 0xff),
    ]

    /// The six levels of each channel in the colour cube (indices 16–231).
    private static let cubeLevels: [UInt8] = [0, 95, 135, 175, 215, 255]

    /// The colour of palette entry `index`.
    public static func rgb(_ index: UInt8) -> RGB {
        switch index {
        case 0..<16:
            return basic[Int(index)]
        case 16..<232:
            let cube = Int(index) - 16
            return RGB(cubeLevels[cube / 36], cubeLevels[cube / 6 % 6], cubeLevels[cube % 6])
        default:
            let grey = UInt8(8 + 10 * (Int(index) - 232))
            return RGB(grey, grey, grey)
        }
    }

    /// How a cell's colours look: `.standard` as the default colours, and swapped when the style is reversed.
    public static func colors(of style: CellStyle) -> (foreground: RGB, background: RGB) {
        let foreground = style.foreground.rgb(default: defaultForeground)
        let background = style.background.rgb(default: defaultBackground)
        return style.reverse ? (background, foreground) : (foreground, background)
    }
}

extension TerminalColor {
    /// The colour shown: a palette entry, or `standard` where the terminal's default is meant.
    func rgb(default standard: RGB) -> RGB {
        switch self {
        case .standard: standard
        case .index(let index): TerminalPalette.rgb(index)
        }
    }
}
