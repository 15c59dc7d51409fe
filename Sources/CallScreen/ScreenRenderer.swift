import CallSession
import ChannelEngine
import Foundation

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
                              video: (UInt) -> VideoFrameSource?, at time: Duration) -> CellGrid {
        var grid = CellGrid(width: width, height: height)
        guard width >= minimumWidth, height >= minimumHeight else {
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
        drawKeys(into: &grid, painter)
        let bodyTop = 2, bodyHeight = height - 3
        if width >= 110 {
            let panelWidth = min(56, width / 3)
            let videoWidth = width - panelWidth - 1
            drawVideo(state, into: &grid, x: 0, y: bodyTop, width: videoWidth, height: bodyHeight, painter, video, time)
            drawTokenPanel(state, into: &grid, x: videoWidth + 1, y: bodyTop, width: panelWidth, painter)
            drawLog(state, into: &grid, x: videoWidth + 1, y: bodyTop + 7, width: panelWidth, height: bodyHeight - 7, painter)
        } else {
            let logHeight = max(4, bodyHeight / 4)
            let videoHeight = bodyHeight - 6 - logHeight
            drawVideo(state, into: &grid, x: 0, y: bodyTop, width: width, height: videoHeight, painter, video, time)
            drawTokenPanel(state, into: &grid, x: 0, y: bodyTop + videoHeight, width: width, painter)
            drawLog(state, into: &grid, x: 0, y: bodyTop + videoHeight + 6, width: width, height: logHeight, painter)
        }
        if state.showHelp { drawHelp(into: &grid, painter) }
        return grid
    }

    // MARK: Header, status, keys

    private static func drawHeader(_ state: ScreenState, into grid: inout CellGrid, _ painter: Painter) {
        let style = CellStyle(bold: true, reverse: true)
        grid.fill(x: 0, y: 0, width: grid.width, height: 1, with: Cell(character: " ", style: style))
        let uid = state.uid == 0 ? "uid (assigned at join)" : "uid \(state.uid)"
        let text = " tokencall \(painter.bar) channel \(state.channel) \(painter.bar) \(uid) \(painter.bar) \(state.role.name)"
            + " \(painter.bar) token server \(state.tokenServer)"
        grid.write(text, x: 0, y: 0, style: style)
    }

    private static func drawStatus(_ state: ScreenState, into grid: inout CellGrid, _ painter: Painter) {
        let color: TerminalColor = switch state.connection {
        case .connected: .green
        case .connecting, .reconnecting: .yellow
        case .failed: .red
        case .disconnected: .standard
        }
        let style = painter.style(foreground: color, bold: true)
        let text = " \(painter.dot) \(state.connection.name)"
        grid.write(text, x: 0, y: 1, style: style)
        grid.write(state.reason.name, x: text.count + 1, y: 1, style: painter.style(foreground: color))
        var extra = "t \(Int(state.sessionTime.components.seconds)) s"
        if state.networkDown { extra = "network cut \(painter.bar) " + extra }
        grid.write(extra, x: grid.width - extra.count - 1, y: 1, style: painter.style(foreground: state.networkDown ? .red : .standard))
    }

    private static func drawKeys(into grid: inout CellGrid, _ painter: Painter) {
        let keys = " j join  l leave  r rejoin  n renew  a auto  m method  c role  +/- users  i net  s server  e expire  ? help  q quit"
        grid.write(keys, x: 0, y: grid.height - 1, style: painter.style(foreground: .cyan))
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
        let latency = state.lastFetchLatency.map { "\(Int(($0.components.seconds * 1000) + $0.components.attoseconds / 1_000_000_000_000_000)) ms" } ?? "-"
        let rows = lines + [
            ("renew method \(state.renewMethod.rawValue)  \(painter.bar)  auto-renew \(state.autoRenew ? "on" : "off")", .plain),
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
        for (row, entry) in state.log.suffix(height - 1).enumerated() {
            let color: TerminalColor = switch entry.tone {
            case .good: .green
            case .warning: .yellow
            case .bad: .red
            case .normal: .standard
            }
            let time = SessionEvent.decimal(entry.time)
            let stamp = String(repeating: " ", count: max(0, 8 - time.count)) + time + "s "
            grid.write(stamp, x: x, y: y + 1 + row, style: painter.style(foreground: .standard), limit: width)
            grid.write(entry.name, x: x + stamp.count, y: y + 1 + row,
                       style: painter.style(foreground: color, bold: entry.tone != .normal), limit: width - stamp.count)
            grid.write(" " + entry.detail, x: x + stamp.count + entry.name.count, y: y + 1 + row, style: painter.style(foreground: color),
                       limit: max(0, width - stamp.count - entry.name.count))
        }
    }

    // MARK: Help

    static let keyHelp: [(String, String)] = [
        ("j", "join the channel (a fresh token first)"), ("l", "leave the channel"), ("r", "rejoin: leave, then join again"),
        ("n", "renew now with the current method"), ("a", "auto-renew on/off"), ("m", "next renew method: renew, update, rejoin"),
        ("c", "switch role: broadcaster / audience"), ("+ / -", "add / remove a remote user"), ("i", "cut / restore the network"),
        ("s", "stop / start the embedded token server"), ("e", "expire the token now"), ("?", "this help"), ("q, Ctrl-C", "leave and quit"),
    ]

    private static func drawHelp(into grid: inout CellGrid, _ painter: Painter) {
        let width = 52, height = keyHelp.count + 4
        let x = (grid.width - width) / 2, y = max(1, (grid.height - height) / 2)
        grid.fill(x: x, y: y, width: width, height: height, with: Cell(character: " ", style: CellStyle(reverse: true)))
        grid.write(" keys (any key closes) ", x: x + 2, y: y, style: CellStyle(bold: true, reverse: true))
        for (index, (key, meaning)) in keyHelp.enumerated() {
            grid.write(" " + key.padding(toLength: 10, withPad: " ", startingAt: 0) + meaning, x: x + 1, y: y + 2 + index,
                       style: CellStyle(reverse: true), limit: width - 2)
        }
    }

    // MARK: Helpers

    static func mmss(_ seconds: Int64) -> String {
        let m = seconds / 60, s = seconds % 60
        return (m < 10 ? "0" : "") + "\(m):" + (s < 10 ? "0" : "") + "\(s)"
    }

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

    func style(foreground: TerminalColor = .standard, bold: Bool = false) -> CellStyle {
        CellStyle(foreground: options.colors > 0 ? foreground : .standard, bold: bold)
    }
}
