import SeededRandom
import Testing
import TestSupport
@testable import CallScreen

/// Just enough of a terminal to replay what `TerminalOutput` writes: cursor moves, clear, SGR, characters.
struct MiniTerminal {
    var screen: CellGrid
    var row = 0, column = 0
    var pen = CellStyle.plain

    init(width: Int, height: Int) { screen = CellGrid(width: width, height: height) }

    mutating func feed(_ bytes: [UInt8]) {
        let scalars = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
        var index = 0
        while index < scalars.count {
            guard scalars[index] == "\u{1B}", index + 1 < scalars.count, scalars[index + 1] == "[" else {
                screen[column, row] = Cell(character: scalars[index], style: pen)
                if scalars[index].isDoubleColumn {
                    screen[column + 1, row] = .continuation(pen)
                    column += 1
                }
                column += 1
                index += 1
                continue
            }
            var end = index + 2
            while !("@"..."~").contains(scalars[end]) { end += 1 }
            let parameters = String(String.UnicodeScalarView(scalars[(index + 2)..<end])).split(separator: ";", omittingEmptySubsequences: false)
                .map { Int($0) ?? 0 }
            switch scalars[end] {
            case "H":
                (row, column) = parameters.count == 2 ? (parameters[0] - 1, parameters[1] - 1) : (0, 0)
            case "J":
                screen = CellGrid(width: screen.width, height: screen.height)
            case "m":
                var codes = parameters[...]
                while let code = codes.popFirst() {
                    switch code {
                    case 0: pen = .plain
                    case 1: pen.bold = true
                    case 7: pen.reverse = true
                    case 38: pen.foreground = .index(UInt8(codes.dropFirst().first!)); codes = codes.dropFirst(2)
                    case 48: pen.background = .index(UInt8(codes.dropFirst().first!)); codes = codes.dropFirst(2)
                    case 39: pen.foreground = .standard
                    case 49: pen.background = .standard
                    default: Issue.record("unexpected SGR \(code)")
                    }
                }
            default:
                Issue.record("unexpected sequence ending in \(scalars[end])")
            }
            index = end + 1
        }
    }
}

private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

@Suite struct TerminalOutputTests {
    @Test func anUnchangedFrameSendsNothing() {
        var output = TerminalOutput(codes: .ansi)
        var grid = CellGrid(width: 20, height: 4)
        grid.write("hello", x: 1, y: 1, style: CellStyle(foreground: .green, bold: true))
        _ = output.bytes(from: nil, to: grid)
        #expect(output.bytes(from: grid, to: grid).isEmpty)
    }

    @Test func aChangeSendsOnlyItsCellsAndLeavesAttributesOff() {
        var output = TerminalOutput(codes: .ansi)
        let before = CellGrid(width: 20, height: 4)
        _ = output.bytes(from: nil, to: before)
        var after = before
        after.write("X", x: 7, y: 2, style: CellStyle(foreground: .red, bold: true))
        #expect(text(output.bytes(from: before, to: after)) == "\u{1B}[3;8H\u{1B}[1m\u{1B}[38;5;1mX\u{1B}[m\u{1B}[39;49m")
    }

    @Test func aShortGapIsRewrittenRatherThanJumped() {
        var output = TerminalOutput(codes: .ansi)
        var before = CellGrid(width: 20, height: 4)
        before.write("abcdef", x: 0, y: 0)
        _ = output.bytes(from: nil, to: before)
        var after = before
        after.write("B", x: 1, y: 0)
        after.write("E", x: 4, y: 0)
        #expect(text(output.bytes(from: before, to: after)) == "\u{1B}[1;2HBcdE")
    }

    @Test func theBottomRightCellIsNeverWritten() {
        var output = TerminalOutput(codes: .ansi)
        let before = CellGrid(width: 5, height: 2)
        _ = output.bytes(from: nil, to: before)
        var after = before
        after.write("Z", x: 4, y: 1)
        #expect(output.bytes(from: before, to: after).isEmpty)
    }

    @Test func terminfoPaddingIsNotSentToTheScreen() {
        // vt100's sgr0, clear and cup, as terminfo has them.
        #expect(text(TerminalCodes.withoutPadding(Array("\u{1B}[m\u{0F}$<2>".utf8))) == "\u{1B}[m\u{0F}")
        #expect(text(TerminalCodes.withoutPadding(Array("\u{1B}[H\u{1B}[J$<50>".utf8))) == "\u{1B}[H\u{1B}[J")
        #expect(text(TerminalCodes.withoutPadding(Array("\u{1B}[3;4H$<5*/>x".utf8))) == "\u{1B}[3;4Hx")
        #expect(text(TerminalCodes.withoutPadding(Array("cost $<not padding>".utf8))) == "cost $<not padding>")
    }

    @Test func aFirstOrResizedFrameClearsAndDrawsWhatIsNotBlank() {
        var output = TerminalOutput(codes: .ansi)
        var grid = CellGrid(width: 30, height: 3)
        grid.write("tokencall", x: 2, y: 1)
        let bytes = text(output.bytes(from: CellGrid(width: 10, height: 3), to: grid))
        #expect(bytes.hasSuffix("\u{1B}[H\u{1B}[2J\u{1B}[2;3Htokencall"))
    }

    @Test func replayedFramesShowExactlyTheGrids() {
        var generator = SplitMix64(seed: 2026)
        // Few styles, so that runs and short gaps of one style (rewritten rather than jumped) are common.
        let styles = [CellStyle.plain, CellStyle(foreground: .index(17), background: .index(231)), CellStyle(foreground: .red, bold: true),
                      CellStyle(reverse: true)]
        let characters: [Unicode.Scalar] = [" ", "a", "▀", "│", "#", "中", "文"]
        var output = TerminalOutput(codes: .ansi)
        var terminal = MiniTerminal(width: 24, height: 6)
        var previous: CellGrid?
        var grid = CellGrid(width: 24, height: 6)
        for _ in 0..<2000 {
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                let style = styles.randomElement(using: &generator)!
                let row = Int.random(in: 0..<6, using: &generator)
                // Not into the last two cells of the last row, which are never sent (automatic margins).
                let column = Int.random(in: 0..<(row == 5 ? 22 : 24), using: &generator)
                let text = String(String.UnicodeScalarView((0..<Int.random(in: 1...3, using: &generator)).map { _ in
                    characters.randomElement(using: &generator)!
                }))
                grid.write(text, x: column, y: row, style: style, limit: row == 5 ? 22 - column : nil)
            }
            terminal.feed(output.bytes(from: previous, to: grid))
            previous = grid
            var expected = grid
            expected[23, 5] = terminal.screen[23, 5]
            #expect(terminal.screen == expected)
            #expect(terminal.pen == .plain, "every frame ends with attributes off")
        }
    }
}

@Suite struct CellTextTests {
    @Test func controlCharactersAndMarksAreWrittenAsQuestionMarks() {
        var grid = CellGrid(width: 30, height: 1)
        grid.write("a\u{1B}[2Jb错e\u{301}\u{9B}é│●😀z", x: 0, y: 0)
        #expect(grid.lines == ["a?[2Jb错e??é│●😀z"])
    }

    @Test func aTerminalWithoutUTF8GetsOnlyASCII() {
        var output = TerminalOutput(codes: .ansi, unicode: false)
        var grid = CellGrid(width: 20, height: 2)
        grid.write("café │ ok", x: 0, y: 0)
        #expect(text(output.bytes(from: nil, to: grid)).hasSuffix("caf? ? ok"))
    }

    @Test func wideCharactersTakeTwoColumnsAndCuttingOneInHalfBlanksIt() {
        var grid = CellGrid(width: 12, height: 1)
        grid.write("a中文b", x: 0, y: 0)
        #expect(grid.lines == ["a中文b"] && grid[5, 0].character == "b" && grid[2, 0].isContinuation)
        grid.write("x", x: 2, y: 0)
        #expect(grid.lines == ["a x文b"], "the left half goes with the right")
        grid.write("中", x: 10, y: 0)
        grid.write("中", x: 11, y: 0)
        #expect(grid[11, 0].character == "?", "one column left: a question mark")
        #expect(grid[10, 0].character == " ", "and the wide character it cut is blanked")
    }

    @Test func noControlCharacterReachesTheTerminal() {
        var output = TerminalOutput(codes: .ansi)
        let before = CellGrid(width: 8, height: 2)
        _ = output.bytes(from: nil, to: before)
        var after = before
        after[1, 0] = Cell(character: "\u{1B}", style: .plain)
        after[2, 0] = Cell(character: "\u{9B}", style: .plain)
        #expect(text(output.bytes(from: before, to: after)) == " ??")  // from the home position, the blank is rewritten
    }
}
