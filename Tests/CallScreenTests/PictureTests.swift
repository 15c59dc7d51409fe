import CallSession
import ChannelEngine
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import CallScreen

/// What an SVG picture paints, read back with Foundation's XML parser: its size, its rectangles in order and its texts.
struct PaintedPicture {
    struct Rect { let x, y, width, height: Int; let fill: String }
    var width = 0, height = 0
    var rects: [Rect] = []
    var texts: [(x: Int, y: Int, text: String, fill: String)] = []

    init(_ svg: String) throws {
        let reader = Reader()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = reader
        try #require(parser.parse(), "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "")")
        self = reader.picture
    }

    private init() {}

    /// The colour at a pixel: the fill of the last rectangle painted over it.
    func color(x: Int, y: Int) -> String? {
        rects.last { $0.x <= x && x < $0.x + $0.width && $0.y <= y && y < $0.y + $0.height }?.fill
    }

    /// The text of each line of cells, runs joined in order.
    var lines: [String] {
        Dictionary(grouping: texts, by: \.y).sorted { $0.key < $1.key }.map { $0.value.map(\.text).joined(separator: " ") }
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var picture = PaintedPicture()
        private var open: (x: Int, y: Int, fill: String)?
        private var text = ""

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            func number(_ key: String) -> Int { Int(attributes[key] ?? "") ?? -1 }
            switch name {
            case "svg": (picture.width, picture.height) = (number("width"), number("height"))
            case "rect" where attributes["width"] != "100%":
                picture.rects.append(Rect(x: number("x"), y: number("y"), width: number("width"), height: number("height"),
                                          fill: attributes["fill"] ?? ""))
            case "text": (open, text) = ((number("x"), number("y"), attributes["fill"] ?? ""), "")
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { if open != nil { text += string } }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            guard name == "text", let open else { return }
            picture.texts.append((open.x, open.y, text, open.fill))
            self.open = nil
        }
    }
}

@Suite struct PictureTests {
    /// A small grid with what a screen has: reversed and bold text, colours, half-block pixels, a wide character and
    /// text that is markup in XML.
    private var grid: CellGrid {
        var grid = CellGrid(width: 24, height: 4)
        grid.fill(x: 0, y: 0, width: 24, height: 1, with: Cell(character: " ", style: CellStyle(bold: true, reverse: true)))
        grid.write(" tokencall │ 界 ", x: 0, y: 0, style: CellStyle(bold: true, reverse: true))
        grid.write("● connected", x: 1, y: 1, style: CellStyle(foreground: .green, bold: true))
        grid.write("<b>&amp;", x: 14, y: 1, style: CellStyle(foreground: .red))
        let pixel = Cell(character: "▀", style: CellStyle(foreground: .index(196), background: .index(21)))
        grid.fill(x: 0, y: 2, width: 6, height: 2, with: pixel)
        grid.fill(x: 6, y: 2, width: 4, height: 2, with: Cell(character: "▀", style: CellStyle(foreground: .index(46), background: .index(46))))
        grid.write("expires in 00:28", x: 8, y: 3, style: CellStyle(foreground: .yellow))
        return grid
    }

    @Test func aGridIsDrawnAsTheSnapshotPicture() throws {
        try assertSnapshot(text: grid.svg(), "picture-24x4.svg")
    }

    @Test func thePictureShowsTheCellsColoursAndText() throws {
        let picture = try PaintedPicture(grid.svg())
        let (cellWidth, cellHeight) = CellGrid.pictureCell
        #expect(picture.width == 24 * cellWidth && picture.height == 4 * cellHeight)
        #expect(picture.lines == ["tokencall │ 界", "● connected <b>&amp;", "expires in 00:28"])
        // The header is reversed: the default foreground as its background.
        #expect(picture.color(x: 1, y: 1) == TerminalPalette.defaultForeground.hex)
        // A half block is two pixels: the top in its foreground colour, the bottom in its background colour.
        #expect(picture.color(x: 1, y: 2 * cellHeight + 1) == "#ff0000")
        #expect(picture.color(x: 1, y: 3 * cellHeight - 1) == "#0000ff")
        #expect(picture.color(x: 7 * cellWidth, y: 2 * cellHeight + 1) == "#00ff00")
        #expect(picture.color(x: 7 * cellWidth, y: 3 * cellHeight - 1) == "#00ff00")
        #expect(picture.texts.first { $0.text.hasPrefix("expires") }?.fill == TerminalPalette.rgb(3).hex)
        // No rectangle where the background is the default.
        #expect(picture.color(x: 20 * cellWidth, y: 3 * cellHeight + 1) == nil)
    }

    @Test func aScreenWithVideoIsAPictureOfItsPixelsAndStaysSmall() throws {
        let state = ScreenState(call: CallSettings(channel: "test", uid: 0, role: .broadcaster, tokenServer: "http://127.0.0.1:1 (embedded)",
                                renewMethod: .renew, autoRenew: true))
        let grid = ScreenRenderer.render(state, width: 120, height: 40, options: RenderOptions(colors: 256, unicode: true),
                                         video: { .synthetic(VideoFrameSource(uid: $0)) }, at: .seconds(5))
        let svg = grid.svg()
        let picture = try PaintedPicture(svg)
        let (cellWidth, cellHeight) = CellGrid.pictureCell
        var checked = 0
        for row in 3..<30 {
            for column in stride(from: 1, to: 60, by: 7) where grid[column, row].character == "▀" {
                let colors = TerminalPalette.colors(of: grid[column, row].style)
                #expect(picture.color(x: column * cellWidth + 1, y: row * cellHeight + 1) == colors.foreground.hex)
                #expect(picture.color(x: column * cellWidth + 1, y: row * cellHeight + cellHeight - 1) == colors.background.hex)
                checked += 1
            }
        }
        #expect(checked > 100)
        #expect(picture.lines.first?.hasPrefix("tokencall │ iOS SDK │ channel test") == true)
        // Runs are merged: far fewer shapes than the 4800 cells.
        #expect(picture.rects.count + picture.texts.count < 2000, "\(picture.rects.count) rects, \(picture.texts.count) texts")
    }

    @Test func theCubeAndTheGreysAreXtermsColours() {
        #expect(TerminalPalette.rgb(16).hex == "#000000")
        #expect(TerminalPalette.rgb(196).hex == "#ff0000")
        #expect(TerminalPalette.rgb(110).hex == "#87afd7")
        #expect(TerminalPalette.rgb(232).hex == "#080808")
        #expect(TerminalPalette.rgb(255).hex == "#eeeeee")
        #expect(TerminalPalette.colors(of: CellStyle(foreground: .red, reverse: true)).background == TerminalPalette.rgb(1))
    }
}
