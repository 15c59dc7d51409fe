import CallSession
import ChannelEngine
import Timers

extension ScreenRenderer {
    /// Columns before the bars (`#12`, `fetch`, `conn`) and after them (how each token ended).
    private static let timelineGutter = 6, timelineLabels = 16

    /// The token timeline: one bar per token along the call's time, oldest at the top, then rows of marks (fetch
    /// failures and `requestToken`, connection states), the time axis and a legend; as many tokens as fit.
    static func drawTimeline(_ state: ScreenState, into grid: inout CellGrid, x: Int, y: Int, width: Int, height: Int,
                             _ painter: Painter) {
        grid.fill(x: x, y: y, width: width, height: height)
        let title = " token timeline (t hides) "
        grid.write(title + String(repeating: painter.horizontal, count: max(0, width - title.count - 1)), x: x, y: y,
                   style: painter.style(bold: true))
        let barWidth = width - timelineGutter - timelineLabels
        guard barWidth >= 10, height >= 5 else { return }
        var legend = legendLines(width: width - 1, in: state.voice, painter)
        while !legend.isEmpty, height - 4 - legend.count < 1 { legend.removeLast() }
        let lives = state.timeline.lives.suffix(height - 4 - legend.count)
        let axis = TimelineAxis(state.timeline, lives: lives, now: state.sessionTime, columns: barWidth)
        let barX = x + timelineGutter
        var row = y + 1
        for life in lives {
            grid.write("#\(life.number)", x: x + 1, y: row, style: painter.style(bold: true))
            drawLife(life, state, axis, into: &grid, x: barX, y: row, painter)
            row += 1
        }
        drawMarks(state.timeline.marks, axis, into: &grid, x: barX, y: row, painter)
        for line in 0..<2 { grid.write(line == 0 ? "fetch" : "conn", x: x + 1, y: row + line) }
        drawAxis(axis, into: &grid, x: barX, y: row + 2, painter)
        let now = "\(painter.nowCursor) now \(shortTime(state.sessionTime.wholeSeconds))"
        grid.write(now, x: barX + barWidth + 1, y: row + 2, limit: timelineLabels - 1)
        for (index, line) in legend.enumerated() { grid.write(line, x: x + 1, y: row + 3 + index) }
        // The now cursor, where nothing else is drawn.
        let cursor = barX + axis.column(state.sessionTime)
        for cursorRow in (y + 1)..<(row + 2) where grid[cursor, cursorRow].character == " " {
            grid[cursor, cursorRow] = Cell(character: painter.nowCursor.unicodeScalars.first!, style: .plain)
        }
    }

    private static func drawLife(_ life: TokenTimeline.Life, _ state: ScreenState, _ axis: TimelineAxis, into grid: inout CellGrid,
                                 x: Int, y: Int, _ painter: Painter) {
        let usedUntil = life.end?.at ?? min(state.sessionTime, life.expiresAt)
        let start = axis.column(life.issuedAt), used = axis.column(usedUntil)
        let warned = life.warnedAt.map(axis.column)
        for column in start...max(start, used) {
            let late = warned.map { column >= $0 } ?? false
            grid.write(painter.lived, x: x + column, y: y, style: painter.style(foreground: late ? .yellow : .green))
        }
        if life.end == nil, used < axis.column(life.expiresAt) {
            for column in (used + 1)...axis.column(life.expiresAt) { grid.write(painter.toCome, x: x + column, y: y) }
        }
        let lead = Duration.seconds(state.willExpireLead)
        // Where the warning came, or for a token still in use, where it will.
        let warning = warned ?? (life.end == nil && life.expiresAt - lead > life.issuedAt ? axis.column(life.expiresAt - lead) : nil)
        if let warning { grid.write(painter.willExpire, x: x + warning, y: y, style: painter.style(foreground: .yellow, bold: true)) }
        grid.write(painter.issued, x: x + start, y: y, style: painter.style(foreground: .green, bold: true))
        let (label, color) = endingLabel(life, state)
        if let end = life.end {
            // One column on when the end falls on the warning's, so that both show.
            let column = warning == used && used > start ? used + 1 : used
            grid.write(endGlyph(end.how, painter), x: x + column, y: y, style: painter.style(foreground: color, bold: true))
        }
        grid.write(label, x: x + axis.columns + 1, y: y, style: painter.style(foreground: color), limit: timelineLabels - 1)
    }

    /// What a token's row says after its bar, and in which colour: green live, yellow warned, red expired.
    private static func endingLabel(_ life: TokenTimeline.Life, _ state: ScreenState) -> (String, TerminalColor) {
        guard let end = life.end else {
            let left = max(0, (life.expiresAt - state.sessionTime).wholeSeconds)
            return life.warnedAt == nil ? ("live \(mmss(left))", .green) : ("warned \(mmss(left))", .yellow)
        }
        switch end.how {
        case .renewed(let method): return ("renewed \(method.rawValue)", .green)
        case .replaced: return ("replaced", .standard)
        case .expired: return ("expired", .red)
        case .left: return ("left", .standard)
        }
    }

    private static func endGlyph(_ ending: TokenTimeline.Ending, _ painter: Painter) -> String {
        switch ending {
        case .renewed: painter.renewedEnd
        case .expired: painter.expiredEnd
        case .replaced, .left: painter.leftEnd
        }
    }

    /// Fetch failures and `requestToken` on one row (`requestToken` over a failure in the same column), connection
    /// states by letter on the next.
    private static func drawMarks(_ marks: [TokenTimeline.Mark], _ axis: TimelineAxis, into grid: inout CellGrid, x: Int, y: Int,
                                  _ painter: Painter) {
        for mark in marks where mark.time >= axis.start {
            let column = x + axis.column(mark.time)
            switch mark.kind {
            case .fetchFailed:
                guard grid[column, y].character != "!" else { continue }
                grid.write(painter.fetchFailed, x: column, y: y, style: painter.style(foreground: .red, bold: true))
            case .requestToken:
                grid.write("!", x: column, y: y, style: painter.style(foreground: .red, bold: true))
            case .connection(let state):
                grid.write(stateLetter(state), x: column, y: y + 1, style: painter.style(foreground: color(of: state), bold: true))
            }
        }
    }

    private static func drawAxis(_ axis: TimelineAxis, into grid: inout CellGrid, x: Int, y: Int, _ painter: Painter) {
        grid.write(String(repeating: painter.horizontal, count: axis.columns), x: x, y: y)
        var free = 0
        for tick in axis.ticks {
            let column = axis.column(.seconds(tick)), label = shortTime(tick)
            guard column >= free, column + label.count <= axis.columns else { continue }
            grid.write(label, x: x + column, y: y)
            free = column + label.count + 1
        }
    }

    /// The legend's entries, as many to a line as fit in `width`.
    private static func legendLines(width: Int, in voice: SDKVoice, _ painter: Painter) -> [String] {
        let states: [AgoraConnectionState] = [.connecting, .connected, .reconnecting, .failed, .disconnected]
        let entries = ["\(painter.willExpire) will-expire", "\(painter.renewedEnd) renewed", "\(painter.expiredEnd) expired",
                       "\(painter.leftEnd) left", "\(painter.fetchFailed) fetch failed", "! \(voice.name(of: .requestToken) ?? SDKWord.requestToken.rawValue)"]
            + states.map { "\(stateLetter($0)) \(voice.profile.spelling(of: $0))" }
        var lines: [String] = []
        for entry in entries {
            if let last = lines.last, last.count + 2 + entry.count <= width {
                lines[lines.count - 1] = last + "  " + entry
            } else {
                lines.append(entry)
            }
        }
        return lines
    }

    private static func stateLetter(_ state: AgoraConnectionState) -> String {
        switch state {
        case .connecting: "c"
        case .connected: "C"
        case .reconnecting: "r"
        case .failed: "F"
        case .disconnected: "d"
        }
    }

    /// `45s`, `2m`, `2m30s`, `1h`, `1h05m`: a time on the axis.
    static func shortTime(_ seconds: Int64) -> String {
        let pad = { (n: Int64) in (n < 10 ? "0" : "") + "\(n)" }
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return seconds % 60 == 0 ? "\(seconds / 60)m" : "\(seconds / 60)m\(pad(seconds % 60))s" }
        let minutes = seconds / 60 % 60
        return minutes == 0 ? "\(seconds / 3600)h" : "\(seconds / 3600)h\(pad(minutes))m"
    }
}

/// The timeline's time axis: the span the shown tokens and marks need, to `columns` columns, and its ticks.
struct TimelineAxis {
    let start: Duration
    let end: Duration
    let columns: Int

    /// From the oldest token shown (or the first mark, when no token is hidden) to the later of now and the token in
    /// use's expiry.
    init(_ timeline: TokenTimeline, lives: ArraySlice<TokenTimeline.Life>, now: Duration, columns: Int) {
        var start = lives.first?.issuedAt ?? now
        if lives.count == timeline.lives.count, let first = timeline.marks.first { start = min(start, first.time) }
        let live = lives.last.flatMap { $0.end == nil ? $0.expiresAt : nil } ?? now
        self.start = start
        end = max(now, live, start + .seconds(1))
        self.columns = columns
    }

    /// The column of `time`, within the axis.
    func column(_ time: Duration) -> Int {
        let fraction = min(max((time - start) / (end - start), 0), 1)
        return Int((fraction * Double(columns - 1)).rounded(.down))
    }

    /// Whole seconds at a round step, at least 8 columns apart.
    var ticks: [Int64] {
        let steps: [Int64] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400]
        let span = (end - start).secondsValue
        let step = steps.first { Double($0) / span * Double(columns - 1) >= 8 } ?? 86_400 * Int64(span / 86_400 + 1)
        let first = (start.wholeSeconds + step - 1) / step * step
        return Array(stride(from: first, through: end.wholeSeconds, by: Int(step)))
    }
}

extension Painter {
    var issued: String { options.unicode ? "┣" : "[" }
    var lived: String { options.unicode ? "━" : "=" }
    var toCome: String { options.unicode ? "┈" : "." }
    var willExpire: String { options.unicode ? "╋" : "+" }
    var renewedEnd: String { options.unicode ? "┫" : "]" }
    var expiredEnd: String { options.unicode ? "╳" : "X" }
    var leftEnd: String { options.unicode ? "┤" : ")" }
    var fetchFailed: String { options.unicode ? "×" : "x" }
    var nowCursor: String { options.unicode ? "┊" : ":" }
}
