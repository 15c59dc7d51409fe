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

/// One character cell.
public struct Cell: Hashable, Sendable {
    public var character: Character
    public var style: CellStyle

    public static let blank = Cell(character: " ", style: .plain)
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

    /// Writes `text` from (x, y), clipped at `limit` columns (default: the grid's edge).
    public mutating func write(_ text: String, x: Int, y: Int, style: CellStyle = .plain, limit: Int? = nil) {
        guard y >= 0, y < height else { return }
        let end = min(width, limit.map { x + $0 } ?? width)
        var column = x
        for character in text {
            guard column < end else { break }
            self[column, y] = Cell(character: character, style: style)
            column += 1
        }
    }

    /// Fills a rectangle with one cell.
    public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, with cell: Cell = .blank) {
        for row in max(0, y)..<min(height, y + h) {
            for column in max(0, x)..<min(width, x + w) { self[column, row] = cell }
        }
    }

    /// The characters of each row, trailing spaces removed.
    public var lines: [String] {
        (0..<height).map { row in
            var line = String(cells[(row * width)..<(row * width + width)].map(\.character))
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// All rows joined by newlines.
    public var text: String { lines.joined(separator: "\n") }
}
