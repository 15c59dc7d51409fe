import ChannelEngine

extension ScreenRenderer {
    /// The local tile and one per remote user, laid out to use the area best, each animating its picture.
    static func drawVideo(_ state: ScreenState, into grid: inout CellGrid, x: Int, y: Int, width: Int, height: Int,
                          _ painter: Painter, _ video: (UInt) -> VideoPicture?, _ time: Duration) {
        guard width > 4, height > 2 else { return }
        let remotes = state.visibleRemotes
        let count = remotes.count + 1
        let (columns, rows) = tiling(count, width: width, height: height)
        let tileWidth = width / columns, tileHeight = height / rows
        for index in 0..<count {
            let tileX = x + (index % columns) * tileWidth, tileY = y + (index / columns) * tileHeight
            let w = tileWidth - 1, h = tileHeight - (rows > 1 ? 1 : 0)
            if index == 0 {
                let picture = state.call.role == .broadcaster ? video(state.call.uid) : nil
                let tag = state.call.role == .audience ? "not publishing" : picture == nil ? "no video" : "live"
                // The account (named in the header) goes first when the tile is too narrow for it: the uid shows whole.
                let parts = ["you", state.call.uid == 0 ? nil : "uid \(state.call.uid)", state.call.account].compactMap { $0 }
                let full = parts.joined(separator: " \(painter.bar) ")
                let label = full.count + tag.count + 4 <= w || state.call.uid == 0 ? full : parts.dropLast().joined(separator: " \(painter.bar) ")
                drawTile(into: &grid, x: tileX, y: tileY, width: w, height: h, picture: picture, label: label, tag: tag,
                         quality: state.localQuality, painter, time)
            } else {
                let remote = remotes[index - 1]
                let picture = remote.leftAt == nil ? video(remote.uid) : nil
                let tag = remote.leftAt != nil ? "left"
                    : state.connection == .reconnecting ? "reconnecting"
                    : picture?.isFrozen == true ? "frozen" : "live"
                let speaking = remote.leftAt == nil && state.activeSpeaker == remote.uid
                // Beside people on a hub, a simulated user is marked as one.
                let simulated = state.hub != nil && picture?.isSynthetic == true ? " \(painter.bar) sim" : ""
                drawTile(into: &grid, x: tileX, y: tileY, width: w, height: h, picture: picture,
                         label: (speaking ? painter.speaker + " " : "") + "uid \(remote.uid)" + simulated, tag: tag,
                         quality: remote.quality, painter, time)
            }
        }
    }

    /// Columns and rows for `count` tiles: the layout whose tiles are largest, cells being about twice as tall as wide.
    static func tiling(_ count: Int, width: Int, height: Int) -> (columns: Int, rows: Int) {
        var best = (columns: 1, rows: count), bestSize = 0.0
        for columns in 1...max(1, count) {
            let rows = (count + columns - 1) / columns
            let size = min(Double(width / columns), Double(height / rows) * 2.2)
            if size > bestSize { best = (columns, rows); bestSize = size }
        }
        return best
    }

    private static func drawTile(into grid: inout CellGrid, x: Int, y: Int, width: Int, height: Int, picture: VideoPicture?,
                                 label: String, tag: String, quality: AgoraNetworkQuality?, _ painter: Painter, _ time: Duration) {
        guard width > 0, height > 0 else { return }
        if let picture {
            let halfBlocks = painter.options.unicode && painter.options.colors >= 8
            if halfBlocks {
                // Half the pixels across: each pixel covers two cells, so a change in the picture is a run of two cells
                // in one colour pair, which the terminal is sent once (and there are half as many pixels to make).
                let pixelColumns = (width + 1) / 2
                let frame = picture.frame(at: time, width: pixelColumns, height: height * 2, pixelShape: .init(width: 2, height: 1))
                let (gridWidth, gridHeight, colors) = (grid.width, grid.height, painter.options.colors)
                let columns = min(width, gridWidth - x)
                guard x >= 0, y >= 0, columns > 0 else { return }
                frame.pixels.withUnsafeBufferPointer { pixels in
                    grid.withCells { cells in
                        // Pictures come in runs of one colour pair: make each cell once per run. A pixel covers two cells.
                        var lastTop = Pixel(red: 0, green: 0, blue: 0), lastBottom = lastTop, cell = Cell.blank, fresh = true
                        for row in 0..<min(height, gridHeight - y) {
                            let line = (y + row) * gridWidth + x, above = row * 2 * pixelColumns, below = above + pixelColumns
                            var column = 0
                            while column < columns {
                                let top = pixels[above + column >> 1], bottom = pixels[below + column >> 1]
                                if fresh || top != lastTop || bottom != lastBottom {
                                    (lastTop, lastBottom, fresh) = (top, bottom, false)
                                    cell = Cell(character: "▀", style: CellStyle(foreground: color(top, colors), background: color(bottom, colors)))
                                }
                                cells[line + column] = cell
                                if column + 1 < columns { cells[line + column + 1] = cell }
                                column += 2
                            }
                        }
                    }
                }
            } else {
                let frame = picture.frame(at: time, width: width, height: height, pixelShape: .init(width: 1, height: 2))
                for row in 0..<height {
                    for column in 0..<width {
                        grid[x + column, y + row] = cell(frame, column, row, painter)
                    }
                }
            }
        } else {
            grid.fill(x: x, y: y, width: width, height: height)
            let message = tag
            grid.write(message, x: x + max(0, (width - message.count) / 2), y: y + height / 2, style: painter.style(foreground: .yellow),
                       limit: width)
        }
        let tagColor: TerminalColor = switch tag {
        case "live": .green
        case "frozen", "reconnecting": .yellow
        default: .red
        }
        // A label too long for the tile is shortened visibly (a uid cut short would read as another uid), keeping the
        // tag while there is room for it.
        var title = " \(label) ", tagText = " \(tag) "
        if title.count + tagText.count > width {
            let room = width - tagText.count
            if room >= 8 {
                title = " " + String(label.prefix(room - 3)) + painter.ellipsis + " "
            } else {
                title = width > 2 ? " " + String(label.prefix(width - 2)) + painter.ellipsis : ""
                tagText = ""
            }
        }
        grid.write(title, x: x, y: y, style: CellStyle(bold: true, reverse: true), limit: width)
        grid.write(tagText, x: x + title.count, y: y, style: CellStyle(foreground: painter.options.colors > 0 ? .black : .standard,
                   background: painter.options.colors > 0 ? tagColor : .standard, bold: true, reverse: painter.options.colors == 0),
                   limit: max(0, width - title.count))
        // The network quality in the bottom right corner, over the picture.
        if let quality, height > 1 {
            let text = " net \(qualityWord(quality)) "
            if text.count <= width {
                let qualityColor: TerminalColor = switch quality {
                case .excellent, .good: .green
                case .poor, .unknown, .unsupported, .detecting: .yellow
                case .bad, .vBad, .down: .red
                }
                grid.write(text, x: x + width - text.count, y: y + height - 1,
                           style: CellStyle(foreground: painter.options.colors > 0 ? qualityColor : .standard, bold: true, reverse: true),
                           limit: text.count)
            }
        }
    }

    /// How a tile names a network quality.
    static func qualityWord(_ quality: AgoraNetworkQuality) -> String {
        quality == .vBad ? "very bad" : quality.name
    }

    private static let ramp = Array(" .:-=+*#%@".unicodeScalars)

    /// One cell of a frame drawn a pixel per cell: a luminance character, in the nearest basic colour when there are any.
    private static func cell(_ frame: VideoFrame, _ column: Int, _ row: Int, _ painter: Painter) -> Cell {
        let pixel = frame[column, row]
        let character = ramp[Int(pixel.luminance) * (ramp.count - 1) / 255]
        return Cell(character: character, style: CellStyle(foreground: painter.options.colors >= 8 ? color(pixel, 8) : .standard))
    }

    /// The nearest colour: the 6×6×6 cube of a 256-colour palette, or the closest of the 8 basic ones.
    static func color(_ pixel: Pixel, _ colors: Int) -> TerminalColor {
        if colors >= 256 {
            func level(_ value: UInt8) -> Int { Int(value) * 6 / 256 }
            return .index(UInt8(16 + 36 * level(pixel.red) + 6 * level(pixel.green) + level(pixel.blue)))
        }
        let bits = (pixel.red > 127 ? 1 : 0) | (pixel.green > 127 ? 2 : 0) | (pixel.blue > 127 ? 4 : 0)
        return .index(UInt8(bits))
    }
}
