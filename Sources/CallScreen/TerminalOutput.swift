/// The escape sequences of one terminal, as bytes.
struct TerminalCodes {
    /// Clears the screen and homes the cursor.
    var clear: [UInt8]
    /// Turns every attribute off (`sgr0`).
    var reset: [UInt8]
    /// Back to the terminal's own colours (`op`).
    var defaultColors: [UInt8]
    var bold: [UInt8]
    var reverse: [UInt8]
    /// Foreground and background colour by palette index (`setaf`, `setab`); as many as the terminal has.
    var foreground: [[UInt8]]
    var background: [[UInt8]]
    /// Appends the move of the cursor to a row and column, counted from 0 (`cup`).
    var moveTo: (_ row: Int, _ column: Int, _ out: inout [UInt8]) -> Void

    /// `capability` without terminfo's padding (`$<5>`, `$<2*/>`: delays for old hardware that ncurses' `tputs`
    /// would turn into waits); written as it is, it would show on screen.
    static func withoutPadding(_ capability: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < capability.count {
            if capability[index] == UInt8(ascii: "$"), index + 1 < capability.count, capability[index + 1] == UInt8(ascii: "<"),
               let close = capability[(index + 2)...].firstIndex(of: UInt8(ascii: ">")),
               capability[(index + 2)..<close].allSatisfy({ (0x30...0x39).contains($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "*")
                   || $0 == UInt8(ascii: "/") }) {
                index = close + 1
                continue
            }
            out.append(capability[index])
            index += 1
        }
        return out
    }

    /// ECMA-48 sequences with 256 colours, as xterm and tmux take them.
    static var ansi: TerminalCodes {
        TerminalCodes(
            clear: Array("\u{1B}[H\u{1B}[2J".utf8), reset: Array("\u{1B}[m".utf8), defaultColors: Array("\u{1B}[39;49m".utf8),
            bold: Array("\u{1B}[1m".utf8), reverse: Array("\u{1B}[7m".utf8),
            foreground: (0..<256).map { Array("\u{1B}[38;5;\($0)m".utf8) },
            background: (0..<256).map { Array("\u{1B}[48;5;\($0)m".utf8) },
            moveTo: ansiMove)
    }
}

/// ECMA-48's cursor move (`ESC [ row ; column H`, counted from 1), written without formatting a string.
func ansiMove(_ row: Int, _ column: Int, _ out: inout [UInt8]) {
    func digits(_ value: Int) {
        if value >= 10 { digits(value / 10) }
        out.append(UInt8(ascii: "0") + UInt8(value % 10))
    }
    out += [0x1B, UInt8(ascii: "[")]
    digits(row + 1)
    out.append(UInt8(ascii: ";"))
    digits(column + 1)
    out.append(UInt8(ascii: "H"))
}

/// Turns one grid into the next on a terminal: for the cells that changed, the cursor moves, attribute changes and
/// characters that draw them, in as few bytes as it can, for one write per frame. Remembers where the cursor is and
/// which attributes are on between frames.
struct TerminalOutput {
    let codes: TerminalCodes
    /// Whether the terminal takes UTF-8; if not, only ASCII is sent and anything else shows as `?`.
    let unicode: Bool
    private var cursor: (row: Int, column: Int)?
    /// The attributes on now; nil when unknown.
    private var pen: CellStyle?

    init(codes: TerminalCodes, unicode: Bool = true) {
        self.codes = codes
        self.unicode = unicode
    }

    /// Forgets what the terminal shows (someone else wrote to it).
    mutating func forget() {
        cursor = nil
        pen = nil
    }

    /// The bytes that change the screen from `previous` (nil: unknown, so clear and draw all) to `grid`; they end
    /// with every attribute off.
    mutating func bytes(from previous: CellGrid?, to grid: CellGrid) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(8192)
        let sameSize = previous.map { $0.width == grid.width && $0.height == grid.height } ?? false
        if !sameSize {
            setPen(.plain, &out)
            out += codes.clear
            cursor = (0, 0)
        }
        grid.cells.withUnsafeBufferPointer { cells in
            grid.forEachChange(since: sameSize ? previous : nil) { column, row, cell in
                // The right half of a wide character is drawn with its left half, which changed with it.
                if cell.isContinuation { return }
                let columns = cell.character.isDoubleColumn ? 2 : 1
                // Writing the last cell would scroll a terminal with automatic margins.
                if row == grid.height - 1, column + columns >= grid.width { return }
                if !sameSize, cell == .blank { return }
                if let cursor, cursor.row == row, cursor.column < column, column - cursor.column <= 3,
                   (cursor.column..<column).allSatisfy({ cells[row * grid.width + $0].style == pen }) {
                    // A short gap of unchanged cells in the pen's style: rewriting them is shorter than a move.
                    for gap in cursor.column..<column where !cells[row * grid.width + gap].isContinuation {
                        append(cells[row * grid.width + gap].character, &out)
                    }
                } else if cursor == nil || cursor! != (row, column) {
                    codes.moveTo(row, column, &out)
                }
                setPen(cell.style, &out)
                append(cell.character, &out)
                cursor = column + columns < grid.width ? (row, column + columns) : nil
            }
        }
        setPen(.plain, &out)
        return out
    }

    private mutating func setPen(_ style: CellStyle, _ out: inout [UInt8]) {
        guard pen != style else { return }
        var current = pen ?? CellStyle(foreground: .index(0), background: .index(0), bold: true, reverse: true)
        let dropsSomething = (current.bold && !style.bold) || (current.reverse && !style.reverse)
            || (current.foreground != .standard && style.foreground == .standard)
            || (current.background != .standard && style.background == .standard)
        if dropsSomething {
            out += codes.reset
            if current.foreground != .standard || current.background != .standard { out += codes.defaultColors }
            current = .plain
        }
        if style.bold, !current.bold { out += codes.bold }
        if style.reverse, !current.reverse { out += codes.reverse }
        if style.foreground != current.foreground, case .index(let index) = style.foreground, Int(index) < codes.foreground.count {
            out += codes.foreground[Int(index)]
        }
        if style.background != current.background, case .index(let index) = style.background, Int(index) < codes.background.count {
            out += codes.background[Int(index)]
        }
        pen = style
    }

    private func append(_ character: Unicode.Scalar, _ out: inout [UInt8]) {
        // A control character would act instead of showing; cells never hold one (`CellGrid.write`), and none is sent.
        if character.value < 0x20 || (0x7F...0x9F).contains(character.value) {
            out.append(UInt8(ascii: "?"))
        } else if character.isASCII {
            out.append(UInt8(character.value))
        } else if !unicode {
            // Two columns for a wide character, so that the rest of the line stays in place.
            out += character.isDoubleColumn ? [UInt8(ascii: "?"), UInt8(ascii: "?")] : [UInt8(ascii: "?")]
        } else {
            UTF8.encode(character) { out.append($0) }
        }
    }
}
