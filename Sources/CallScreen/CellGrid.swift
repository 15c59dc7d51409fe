#if canImport(Glibc)
import Glibc
#endif

/// A terminal colour: the terminal's default, or an index into its palette (0–7 basic, 8–255 extended).
public enum TerminalColor: Hashable, Sendable {
    case standard
    case index(UInt8)

    public static let black = TerminalColor.index(0), red = TerminalColor.index(1), green = TerminalColor.index(2)
    public static let yellow = TerminalColor.index(3), blue = TerminalColor.index(4), magenta = TerminalColor.index(5)
    public static let cyan = TerminalColor.index(6), white = TerminalColor.index(7)
}

/// How a cell looks, apart from its character.
public struct CellStyle: Hashable, Sendable {
    public var foreground: TerminalColor = .standard
    public var background: TerminalColor = .standard
    public var bold = false
    public var reverse = false

    public init(foreground: TerminalColor = .standard, background: TerminalColor = .standard, bold: Bool = false,
                reverse: Bool = false) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.reverse = reverse
    }

    public static let plain = CellStyle()
}

/// One character cell: a single Unicode scalar (every character the screen draws is one), so a cell is a plain
/// value that copies and compares without reference counting. A wide character (CJK, say) takes its cell and the
/// next, which holds a continuation.
public struct Cell: Hashable, Sendable {
    public var character: Unicode.Scalar
    public var style: CellStyle

    public static let blank = Cell(character: " ", style: .plain)

    /// The right half of the wide character in the cell to its left.
    public static func continuation(_ style: CellStyle) -> Cell { Cell(character: "\u{0}", style: style) }

    public var isContinuation: Bool { character == "\u{0}" }
}

/// What a frame draws, in memory: rows of cells that tests read as text and the presenter diffs.
public struct CellGrid: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
        set {
            guard x >= 0, y >= 0, x < width, y < height else { return }
            cells[y * width + x] = newValue
        }
    }

    /// Writes `text` from (x, y), clipped at `limit` columns (default: the grid's edge). A wide character takes two
    /// columns; a character that a terminal would not show in one or two whole columns — a control character, a
    /// combining mark — is written as `?`, as is a wide one with one column left: text from outside (a token
    /// server's error, say) can neither move the cursor nor shift the rest of the line.
    public mutating func write(_ text: String, x: Int, y: Int, style: CellStyle = .plain, limit: Int? = nil) {
        let end = min(width, limit.map { x + $0 } ?? width)
        guard y >= 0, y < height, x < end, !text.isEmpty else { return }
        cutWideCharacter(before: x, row: y)
        var column = x
        for character in text.unicodeScalars {
            guard column < end else { break }
            if character.isDoubleColumn, column + 1 < end {
                self[column, y] = Cell(character: character, style: style)
                self[column + 1, y] = .continuation(style)
                column += 2
            } else {
                self[column, y] = Cell(character: character.isSingleColumn ? character : "?", style: style)
                column += 1
            }
        }
        cutWideCharacter(after: column, row: y)
    }

    /// Cells from `column` on are about to be overwritten: a wide character whose right half is there loses its left
    /// half too (a terminal shows the rest as blank).
    private mutating func cutWideCharacter(before column: Int, row: Int) {
        guard column > 0, column < width, self[column, row].isContinuation else { return }
        self[column - 1, row] = Cell(character: " ", style: self[column - 1, row].style)
    }

    /// Cells before `column` were overwritten: a right half left there without its wide character becomes blank.
    private mutating func cutWideCharacter(after column: Int, row: Int) {
        guard column < width, self[column, row].isContinuation else { return }
        self[column, row] = Cell(character: " ", style: self[column, row].style)
    }

    /// Fills a rectangle with one cell.
    public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, with cell: Cell = .blank) {
        let columns = max(0, x)..<min(width, x + w), rows = max(0, y)..<min(height, y + h)
        guard !columns.isEmpty, !rows.isEmpty else { return }
        for row in rows {
            cutWideCharacter(before: columns.lowerBound, row: row)
            cutWideCharacter(after: columns.upperBound, row: row)
        }
        let gridWidth = width
        withCells { cells in
            for row in rows {
                UnsafeMutableBufferPointer(rebasing: cells[(row * gridWidth + columns.lowerBound)..<(row * gridWidth + columns.upperBound)])
                    .update(repeating: cell)
            }
        }
    }

    /// Calls `body` with each cell that differs from `previous` at the same place (every cell when there is no
    /// previous grid of this size), row by row; rows that did not change are skipped whole.
    public func forEachChange(since previous: CellGrid?, _ body: (_ x: Int, _ y: Int, Cell) -> Void) {
        let last = previous.flatMap { $0.width == width && $0.height == height ? $0 : nil }
        cells.withUnsafeBufferPointer { cells in
            guard let last else {
                for index in cells.indices { body(index % width, index / width, cells[index]) }
                return
            }
            last.cells.withUnsafeBufferPointer { lastCells in
                for y in 0..<height {
                    let row = y * width
                    // Equal bytes are equal cells (the converse need not hold: padding), so a row memcmp finds equal
                    // rows fast and the cell comparison below decides the rest.
                    if memcmp(lastCells.baseAddress! + row, cells.baseAddress! + row, width * MemoryLayout<Cell>.stride) == 0 {
                        continue
                    }
                    for x in 0..<width where lastCells[row + x] != cells[row + x] { body(x, y, cells[row + x]) }
                }
            }
        }
    }

    /// Runs `body` on the cells, row by row, for drawing in bulk.
    mutating func withCells<Result>(_ body: (UnsafeMutableBufferPointer<Cell>) -> Result) -> Result {
        cells.withUnsafeMutableBufferPointer { body($0) }
    }

    /// The characters of each row, trailing spaces removed.
    public var lines: [String] {
        (0..<height).map { row in
            var line = String(String.UnicodeScalarView(cells[(row * width)..<(row * width + width)].lazy.filter { !$0.isContinuation }
                .map(\.character)))
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// All rows joined by newlines.
    public var text: String { lines.joined(separator: "\n") }
}

extension Unicode.Scalar {
    /// Whether terminals show this scalar in two columns: the East Asian wide and fullwidth blocks (Hangul, kana,
    /// CJK ideographs and symbols, fullwidth forms) and pictographic emoji, without marks.
    var isDoubleColumn: Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
             0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            switch properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark, .format, .control, .unassigned: return false
            default: return true
            }
        default:
            return false
        }
    }

    /// Whether terminals show this scalar in exactly one column. Conservative: printable ASCII, and the Latin,
    /// Greek, Cyrillic and other alphabetic blocks, punctuation, arrows, box drawing and other symbols below
    /// U+2C00, without marks, format and control characters, and symbols drawn as emoji; anything else (CJK among
    /// it) is taken as not.
    var isSingleColumn: Bool {
        switch value {
        case 0x20...0x7E:
            return true
        case 0xA0...0x2FF, 0x370...0x10FF, 0x1160...0x1FFF, 0x2010...0x2328, 0x232B...0x2BFF:
            switch properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark, .format, .control, .unassigned, .lineSeparator, .paragraphSeparator:
                return false
            default:
                return !properties.isEmojiPresentation
            }
        default:
            return false
        }
    }
}
