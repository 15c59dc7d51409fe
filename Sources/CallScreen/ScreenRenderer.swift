import CallSession
import ChannelEngine
import Foundation
import Timers
import TokenClient

/// What the terminal can show.
public struct RenderOptions: Sendable, Equatable {
    /// 256, 8, or 0 for no colour at all.
    public var colors: Int
    /// Half blocks and box characters; false draws ASCII only.
    public var unicode: Bool

    public init(colors: Int, unicode: Bool) {
        self.colors = colors
        self.unicode = unicode
    }
}

/// Draws a `ScreenState` into a `CellGrid`: a pure function of state, size, options and the video sources.
public enum ScreenRenderer {
    public static let minimumWidth = 60
    public static let minimumHeight = 20

    public static func render(_ state: ScreenState, width: Int, height: Int, options: RenderOptions,
                              video: (UInt) -> VideoPicture?, at time: Duration) -> CellGrid {
        var grid = chrome(state, width: width, height: height, options: options)
        drawMotion(state, into: &grid, options: options, video: video, at: time)
        return grid
    }

    /// What changes only with the state: everything but the video tiles and the help overlay above them. The app
    /// keeps it while the state stays the same and draws the motion over a copy each frame.
    public static func chrome(_ state: ScreenState, width: Int, height: Int, options: RenderOptions) -> CellGrid {
        var grid = CellGrid(width: width, height: height)
        guard let layout = Layout(width: width, height: height) else {
            let message = "terminal too small (need \(minimumWidth)×\(minimumHeight))"
            let lines = message.count <= width ? [message] : ["terminal too small", "(need \(minimumWidth)×\(minimumHeight))"]
            for (index, line) in lines.enumerated() {
                grid.write(line, x: max(0, (width - line.count) / 2), y: max(0, height / 2 + index))
            }
            return grid
        }
        let painter = Painter(options: options)
        drawHeader(state, into: &grid, painter)
        drawStatus(state, into: &grid, painter)
        drawKeys(state.mode.keys, into: &grid, painter)
        drawTokenPanel(state, into: &grid, x: layout.panel.x, y: layout.panel.y, width: layout.panel.width, painter)
        drawLog(state, into: &grid, x: layout.log.x, y: layout.log.y, width: layout.log.width, height: layout.log.height, painter)
        if state.showTimeline {
            drawTimeline(state, into: &grid, x: 0, y: layout.bodyTop, width: layout.video.width, height: layout.video.height, painter)
        }
        return grid
    }

    /// Draws the video tiles at `time` (unless the timeline is in their place), and the help overlay, over `grid`: the
    /// chrome of the same state and size.
    public static func drawMotion(_ state: ScreenState, into grid: inout CellGrid, options: RenderOptions,
                                  video: (UInt) -> VideoPicture?, at time: Duration) {
        guard let layout = Layout(width: grid.width, height: grid.height) else { return }
        let painter = Painter(options: options)
        if !state.showTimeline {
            drawVideo(state, into: &grid, x: 0, y: layout.bodyTop, width: layout.video.width, height: layout.video.height,
                      painter, video, time)
        }
        if state.showHelp { drawHelp(state.mode.keys, in: state.voice, into: &grid, painter) }
    }

    /// Where the parts of the screen go: video on the left with the token panel and log beside it from 110 columns
    /// on, stacked below it on narrower screens; nil below the minimum size.
    private struct Layout {
        let bodyTop = 2
        let video: (width: Int, height: Int)
        let panel: (x: Int, y: Int, width: Int)
        let log: (x: Int, y: Int, width: Int, height: Int)

        init?(width: Int, height: Int) {
            guard width >= ScreenRenderer.minimumWidth, height >= ScreenRenderer.minimumHeight else { return nil }
            let bodyHeight = height - 3
            if width >= 110 {
                let panelWidth = min(56, width / 3)
                let videoWidth = width - panelWidth - 1
                video = (videoWidth, bodyHeight)
                panel = (videoWidth + 1, bodyTop, panelWidth)
                log = (videoWidth + 1, bodyTop + 7, panelWidth, bodyHeight - 7)
            } else {
                let logHeight = max(4, bodyHeight / 4)
                let videoHeight = bodyHeight - 6 - logHeight
                video = (width, videoHeight)
                panel = (0, bodyTop + videoHeight, width)
                log = (0, bodyTop + videoHeight + 6, width, logHeight)
            }
        }
    }

    // MARK: Header, status, keys

    private static func drawHeader(_ state: ScreenState, into grid: inout CellGrid, _ painter: Painter) {
        let style = CellStyle(bold: true, reverse: true)
        grid.fill(x: 0, y: 0, width: grid.width, height: 1, with: Cell(character: " ", style: style))
        let uid = (state.call.account.map { "account \($0) \(painter.bar) " } ?? "") + (state.call.uid == 0 ? "uid (assigned at join)" : "uid \(state.call.uid)")
        let text = " tokencall\(modeTitle(state)) \(painter.bar) \(state.voice.profile.title) SDK \(painter.bar) channel \(state.call.channel) \(painter.bar) \(uid) \(painter.bar) \(state.call.role.name)"
            + " \(painter.bar) token server \(state.call.tokenServer)"
        grid.write(text, x: 0, y: 0, style: style)
    }

    /// What the header adds to the name: a fast call's speed (` 3600x`) or a paused one's (` 1x paused`); on a replay
    /// ` replay 4x`, ` replay 4x paused`, ` replay ended`.
    private static func modeTitle(_ state: ScreenState) -> String {
        switch state.mode {
        case .call where state.clock.isPaused: " \(state.clock.speed)x paused"
        case .call: state.clock.speed > 1 ? " \(state.clock.speed)x" : ""
        case .replay(ended: true): " replay ended"
        case .replay: " replay \(state.clock.speed)x" + (state.clock.isPaused ? " paused" : "")
        }
    }

    private static func drawStatus(_ state: ScreenState, into grid: inout CellGrid, _ painter: Painter) {
        if let text = state.paste.text { return drawPasteField(state.paste, text: text, into: &grid, painter) }
        let color = color(of: state.connection)
        let style = painter.style(foreground: color, bold: true)
        let text = " \(painter.dot) \(state.voice.profile.spelling(of: state.connection))"
        let reason = state.voice.profile.spelling(of: state.reason)
        grid.write(text, x: 0, y: 1, style: style)
        grid.write(reason, x: text.count + 1, y: 1, style: painter.style(foreground: color))
        var extra = "t \(state.sessionTime.wholeSeconds) s"
        if let hub = state.hub { extra = "hub \(hub.address) \(hub.link.name) \(painter.bar) " + extra }
        if state.networkDown { extra = "network cut \(painter.bar) " + extra }
        if let mistake = state.mistake { extra = "misconfigure \(mistake.rawValue) \(painter.bar) " + extra }
        let hubLost = if case .lost = state.hub?.link { true } else { false }
        let alarm = state.networkDown || state.mistake != nil || hubLost
        grid.write(extra, x: grid.width - extra.count - 1, y: 1, style: painter.style(foreground: alarm ? .red : .standard))
        if state.tokenNeeded {
            let left = max(0, state.secondsLeft ?? 0)
            let ask = left > 0 ? "token needed, \(mmss(left)) left: press p to paste the next one" : "token expired: press p to paste a new one"
            let x = text.count + reason.count + 3
            grid.write(ask, x: x, y: 1, style: painter.style(foreground: left > 0 ? .yellow : .red, bold: true),
                       limit: max(0, grid.width - extra.count - 2 - x))
        }
    }

    /// A connection state's colour: green connected, yellow on the way, red failed.
    static func color(of connection: AgoraConnectionState) -> TerminalColor {
        switch connection {
        case .connected: .green
        case .connecting, .reconnecting: .yellow
        case .failed: .red
        case .disconnected: .standard
        }
    }

    /// The paste field over the status line: the start and length of what was typed, never the whole token, then
    /// the keys, or why Enter was refused.
    private static func drawPasteField(_ field: PasteField, text: String, into grid: inout CellGrid, _ painter: Painter) {
        let prompt = " paste token: "
        let shown = PastedToken.abbreviated(text, ellipsis: painter.ellipsis) + "_"
        grid.write(prompt, x: 0, y: 1, style: painter.style(bold: true))
        grid.write(shown, x: prompt.count, y: 1, style: painter.style(foreground: .cyan, bold: true))
        let (after, color): (String, TerminalColor) = if case .refused(_, let why) = field { (why, .red) } else { ("Enter applies  Esc cancels", .standard) }
        grid.write(after, x: prompt.count + shown.count + 2, y: 1, style: painter.style(foreground: color),
                   limit: max(0, grid.width - prompt.count - shown.count - 3))
    }

    /// The key bar's entries, from the mode's `KeyBinding.table`: help and quit first, so that a narrow terminal cuts
    /// off the call's keys rather than the way out.
    static func keyBarEntries(_ mode: KeyBinding.Mode = .call) -> [String] {
        let shown = KeyBinding.table(mode).filter { $0.footer != nil }
        let ordered = shown.filter(\.isScreenOnly) + shown.filter { !$0.isScreenOnly }
        return ordered.compactMap(\.footer).map { "\($0.keys) \($0.word)" }
    }

    /// The key bar in `width` columns: the entries that fit whole, never a key cut from its word.
    static func keyBar(width: Int, _ mode: KeyBinding.Mode = .call) -> String {
        var bar = ""
        for entry in keyBarEntries(mode) {
            let next = bar + "  " + entry
            if next.count > width { break }
            bar = next
        }
        return String(bar.dropFirst())
    }

    private static func drawKeys(_ mode: KeyBinding.Mode, into grid: inout CellGrid, _ painter: Painter) {
        // Not into the bottom-right cell: writing it would scroll a terminal with automatic margins, so it is never sent.
        grid.write(keyBar(width: grid.width - 1, mode), x: 0, y: grid.height - 1, style: painter.style(foreground: .cyan))
    }

    // MARK: Token panel

    private static func drawTokenPanel(_ state: ScreenState, into grid: inout CellGrid, x: Int, y: Int, width: Int, _ painter: Painter) {
        let title = "token"
        grid.write(" \(title) " + String(repeating: painter.horizontal, count: max(0, width - title.count - 3)), x: x, y: y,
                   style: painter.style(bold: true))
        let lines: [(String, CellStyle)]
        if let left = state.secondsLeft, let expiresAt = state.tokenExpiresAt {
            let countdown = left >= 0 ? "expires in \(mmss(left))" : "expired \(mmss(-left)) ago"
            let tone: TerminalColor = left <= 0 ? .red : left <= state.willExpireLead ? .yellow : .green
            lines = [
                ("\(countdown)  (at \(clock(expiresAt)) UTC)", painter.style(foreground: tone, bold: true)),
                (lifetimeBar(state, width: width - 2, painter), painter.style(foreground: tone)),
            ]
        } else {
            lines = [("no token in use", painter.style(foreground: .yellow)), ("", .plain)]
        }
        let latency = state.lastFetchLatency.map { "\($0.wholeMilliseconds) ms" } ?? "-"
        let rows = lines + [
            ("renew method \(state.call.renewMethod.rawValue)  \(painter.bar)  auto-renew \(state.call.autoRenew ? "on" : "off")", .plain),
            ("last fetch \(latency)  \(painter.bar)  fetches \(state.fetchCount)", .plain),
        ]
        for (index, row) in rows.enumerated() { grid.write(" " + row.0, x: x, y: y + 1 + index, style: row.1, limit: width) }
    }

    /// `[████████░░░░|░░░]`: elapsed lifetime filled, `|` where tokenPrivilegeWillExpire fires.
    static func lifetimeBar(_ state: ScreenState, width: Int, _ painter: Painter) -> String {
        guard let expiresAt = state.tokenExpiresAt, let start = state.tokenAcceptedAt, expiresAt > start, width > 4 else { return "" }
        let span = Double(expiresAt - start), inner = width - 2
        let elapsed = min(max((state.now - Double(start)) / span, 0), 1)
        let filled = Int((elapsed * Double(inner)).rounded(.down))
        let mark = Int((Double(expiresAt - state.willExpireLead - start) / span * Double(inner)).rounded(.down))
        var bar = ""
        for column in 0..<inner {
            bar += column == mark && mark >= 0 ? "|" : column < filled ? painter.full : painter.light
        }
        return "[" + bar + "]"
    }

    // MARK: Event log

    private static func drawLog(_ state: ScreenState, into grid: inout CellGrid, x: Int, y: Int, width: Int, height: Int,
                                _ painter: Painter) {
        guard height > 1 else { return }
        grid.write(" events " + String(repeating: painter.horizontal, count: max(0, width - 9)), x: x, y: y, style: painter.style(bold: true))
        // The newest entries that fit, each wrapped onto as many lines as it needs: an error's reason is at its end.
        typealias Piece = (text: String, style: CellStyle)
        let indent = 9, room = height - 1
        var lines: [[Piece]] = []  // newest first
        for entry in state.log.entries.reversed() where lines.count < room {
            let color: TerminalColor = switch entry.tone {
            case .good: .green
            case .warning: .yellow
            case .bad: .red
            case .normal: .standard
            }
            let time = callClock(entry.time)
            let stamp = String(repeating: " ", count: max(0, 7 - time.count)) + time + " "
            let detailStyle = painter.style(foreground: color)
            var detail = Array((entry.detail.isEmpty ? "" : " " + entry.detail).unicodeScalars)
            /// As much of what is left as fits in `room` columns, ending between words: a word that does not fit goes
            /// whole to the next line (a first field too, away from the name), unless it is longer than a line.
            func cut(_ room: Int) -> Int {
                guard detail.count > room else { return detail.count }
                if detail[room] == " " { return room }
                guard let space = detail[..<room].lastIndex(of: " ") else { return room }
                let wordEnd = detail[(space + 1)...].firstIndex(of: " ") ?? detail.endIndex
                return wordEnd - space - 1 > max(1, width - indent) ? room : space + 1
            }
            let firstRoom = cut(max(0, width - stamp.count - entry.name.count))
            var entryLines: [[Piece]] = [[(stamp, painter.style(foreground: .standard)),
                                          (entry.name, painter.style(foreground: color, bold: entry.tone != .normal)),
                                          (String(String.UnicodeScalarView(detail.prefix(firstRoom))), detailStyle)]]
            detail.removeFirst(firstRoom)
            while detail.first == " " { detail.removeFirst() }
            while !detail.isEmpty {
                let take = cut(max(1, width - indent))
                entryLines.append([(String(repeating: " ", count: indent), .plain),
                                   (String(String.UnicodeScalarView(detail.prefix(take))), detailStyle)])
                detail.removeFirst(take)
                while detail.first == " " { detail.removeFirst() }
            }
            // The oldest entry shown keeps its first lines when not all of it fits.
            lines += entryLines.prefix(room - lines.count).reversed()
        }
        for (row, line) in lines.reversed().enumerated() {
            var column = x
            for piece in line {
                grid.write(piece.text, x: column, y: y + 1 + row, style: piece.style, limit: max(0, x + width - column))
                column += piece.text.unicodeScalars.count
            }
        }
    }

    // MARK: Help

    /// The help overlay's lines, from the mode's `KeyBinding.table`: the keys, then what they do, in `voice`'s words.
    static func keyHelp(_ mode: KeyBinding.Mode = .call, in voice: SDKVoice = .standard) -> [(keys: String, line: String)] {
        KeyBinding.table(mode).compactMap { $0.helpLine(in: voice) }
    }

    private static func drawHelp(_ mode: KeyBinding.Mode, in voice: SDKVoice, into grid: inout CellGrid, _ painter: Painter) {
        let lines = keyHelp(mode, in: voice)
        // Below the header, a blank line after the title and at the bottom where they fit; without them on a short screen.
        let margin = lines.count + 4 <= grid.height - 1 ? 2 : 1
        let width = min(grid.width - 2, lines.map(\.line.count).max()! + 14), height = lines.count + 2 * margin
        let x = (grid.width - width) / 2, y = max(1, (grid.height - height) / 2)
        grid.fill(x: x, y: y, width: width, height: height, with: Cell(character: " ", style: CellStyle(reverse: true)))
        grid.write(" keys (any key closes) ", x: x + 2, y: y, style: CellStyle(bold: true, reverse: true))
        for (index, (key, meaning)) in lines.enumerated() {
            grid.write(" " + key.padding(toLength: 10, withPad: " ", startingAt: 0) + meaning, x: x + 1, y: y + margin + index,
                       style: CellStyle(reverse: true), limit: width - 2)
        }
    }

    // MARK: Helpers

    static func mmss(_ seconds: Int64) -> String {
        let m = seconds / 60, s = seconds % 60
        return (m < 10 ? "0" : "") + "\(m):" + (s < 10 ? "0" : "") + "\(s)"
    }

    /// The call's clock as the log stamps it: `0:09`, `12:30`, `1:02:03`.
    static func callClock(_ time: Duration) -> String {
        let seconds = max(0, time.wholeSeconds)
        func two(_ n: Int64) -> String { (n < 10 ? "0" : "") + "\(n)" }
        let hours = seconds / 3600
        return hours > 0 ? "\(hours):\(two(seconds / 60 % 60)):\(two(seconds % 60))" : "\(seconds / 60):\(two(seconds % 60))"
    }

    /// A unix time as the wall clock (UTC) reads it: `18:16:01`.
    static func clock(_ unix: Int64) -> String {
        let second = ((unix % 86_400) + 86_400) % 86_400
        return [second / 3600, second / 60 % 60, second % 60].map { ($0 < 10 ? "0" : "") + "\($0)" }.joined(separator: ":")
    }
}

/// Characters and colours for what the terminal can show.
struct Painter {
    let options: RenderOptions

    var bar: String { options.unicode ? "│" : "|" }
    var dot: String { options.unicode ? "●" : "*" }
    var horizontal: String { options.unicode ? "─" : "-" }
    var full: String { options.unicode ? "█" : "#" }
    var light: String { options.unicode ? "░" : "." }
    var ellipsis: String { options.unicode ? "…" : "~" }
    /// Marks the active speaker's tile.
    var speaker: String { options.unicode ? "♪" : ">" }

    func style(foreground: TerminalColor = .standard, bold: Bool = false) -> CellStyle {
        CellStyle(foreground: options.colors > 0 ? foreground : .standard, bold: bold)
    }
}
