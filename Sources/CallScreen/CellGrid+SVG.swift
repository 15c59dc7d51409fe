extension CellGrid {
    /// One cell of a picture, in pixels: the advance (0.6 em) and line height of a 15 px monospace font.
    public static let pictureCell = (width: 9, height: 18)
    private static let pictureFont = (size: 15, baseline: 14)

    /// The grid as an SVG picture, cell for cell: backgrounds as rectangles (a half block `▀` as its two pixels, top
    /// in the foreground colour and bottom in the background one), text in a monospace font, colours from
    /// `TerminalPalette`. Runs of one colour or one style are merged, so a screen stays a few tens of kilobytes.
    public func svg() -> String {
        let (cellWidth, cellHeight) = Self.pictureCell
        let (pixelWidth, pixelHeight) = (width * cellWidth, height * cellHeight)
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(pixelWidth)" height="\(pixelHeight)" \
            viewBox="0 0 \(pixelWidth) \(pixelHeight)">
            <style>text{white-space:pre;font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;\
            font-size:\(Self.pictureFont.size)px}.b{font-weight:bold}</style>
            <rect width="100%" height="100%" fill="\(TerminalPalette.defaultBackground.hex)"/>

            """
        for row in 0..<height { appendBackground(row: row, to: &out) }
        for row in 0..<height { appendText(row: row, to: &out) }
        return out + "</svg>\n"
    }

    /// The row's backgrounds: the top and bottom half of each cell merged into runs along the row, a run that is the
    /// same in both halves drawn once at full height.
    private func appendBackground(row: Int, to out: inout String) {
        let (cellWidth, cellHeight) = Self.pictureCell
        var top: [RGB] = [], bottom: [RGB] = []
        for column in 0..<width {
            let cell = self[column, row], colors = TerminalPalette.colors(of: cell.style)
            top.append(cell.character == "▀" ? colors.foreground : colors.background)
            bottom.append(colors.background)
        }
        func runs(_ colors: [RGB]) -> [(start: Int, end: Int, color: RGB)] {
            var runs: [(start: Int, end: Int, color: RGB)] = [], start = 0
            for column in 1...colors.count where column == colors.count || colors[column] != colors[start] {
                if colors[start] != TerminalPalette.defaultBackground { runs.append((start, column, colors[start])) }
                start = column
            }
            return runs
        }
        guard width > 0 else { return }
        var lower = runs(bottom)
        func rect(_ run: (start: Int, end: Int, color: RGB), y: Int, height: Int) {
            out += #"<rect x="\#(run.start * cellWidth)" y="\#(y)" width="\#((run.end - run.start) * cellWidth)" "#
                + #"height="\#(height)" fill="\#(run.color.hex)"/>"# + "\n"
        }
        let y = row * cellHeight, half = cellHeight / 2
        for run in runs(top) {
            if let same = lower.firstIndex(where: { $0 == run }) {
                lower.remove(at: same)
                rect(run, y: y, height: cellHeight)
            } else {
                rect(run, y: y, height: half)
            }
        }
        for run in lower { rect(run, y: y + half, height: cellHeight - half) }
    }

    /// The row's text: one `<text>` per run of one colour and weight (spaces join any run), as wide as its cells.
    private func appendText(row: Int, to out: inout String) {
        let (cellWidth, cellHeight) = Self.pictureCell
        func isInk(_ cell: Cell) -> Bool { !cell.isContinuation && cell.character != " " && cell.character != "▀" }
        func key(_ cell: Cell) -> (RGB, Bool) { (TerminalPalette.colors(of: cell.style).foreground, cell.style.bold) }
        var column = 0
        while column < width {
            let first = self[column, row]
            guard isInk(first) else { column += 1; continue }
            let (color, bold) = key(first)
            var lastInk = column, next = column + 1
            while next < width, self[next, row].character != "▀" {
                let cell = self[next, row]
                if isInk(cell) {
                    guard key(cell) == (color, bold) else { break }
                    lastInk = next
                }
                next += 1
            }
            var end = lastInk + 1
            while end < width, self[end, row].isContinuation { end += 1 }
            var text = ""
            for index in column..<end where !self[index, row].isContinuation { text += Self.xmlText(self[index, row].character) }
            out += #"<text x="\#(column * cellWidth)" y="\#(row * cellHeight + Self.pictureFont.baseline)" "#
                + #"textLength="\#((end - column) * cellWidth)" fill="\#(color.hex)"\#(bold ? #" class="b""# : "")>"#
                + text + "</text>\n"
            column = end
        }
    }

    /// A cell's character as XML text: markup characters as entities, and anything XML cannot hold (control
    /// characters, which a cell should not have anyway) as `?`.
    private static func xmlText(_ character: Unicode.Scalar) -> String {
        switch character {
        case "&": "&amp;"
        case "<": "&lt;"
        case ">": "&gt;"
        case _ where character.value < 0x20 || (0x7F...0x9F).contains(character.value) || character.value == 0xFFFE
            || character.value == 0xFFFF:
            "?"
        default: String(character)
        }
    }
}
