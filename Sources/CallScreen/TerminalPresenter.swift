import CNcurses
#if canImport(Glibc)
import Glibc
#endif

/// The only code that touches the terminal: ncurses on the main actor, drawing what changed between grids.
@MainActor
public final class TerminalPresenter {
    /// Why the terminal cannot be used.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    public let options: RenderOptions
    private var previous: CellGrid?
    private var pairs: [PairKey: Int32] = [:]
    private var isOpen = true

    private struct PairKey: Hashable {
        let foreground: TerminalColor
        let background: TerminalColor
    }

    /// Takes over the terminal. Checks TERM first, so that ncurses never exits the process itself.
    public init(noColor: Bool) throws(Unavailable) {
        guard let term = getenv("TERM").map({ String(cString: $0) }), !term.isEmpty, term != "dumb" else {
            throw Unavailable(description: "TERM is not set to a usable terminal; run with --headless, or set TERM (e.g. TERM=xterm-256color)")
        }
        setlocale(LC_ALL, "")
        var unicode = String(cString: tc_codeset()) == "UTF-8"
        if !unicode, setlocale(LC_ALL, "C.UTF-8") != nil { unicode = String(cString: tc_codeset()) == "UTF-8" }
        guard tc_newterm() != nil else {
            throw Unavailable(description: "TERM=\(term) is not a terminal this system knows; run with --headless, or set TERM=xterm-256color")
        }
        tc_restore_terminal_on_fatal_signals()
        raw()
        noecho()
        nonl()
        keypad(tc_stdscr(), true)
        wtimeout(tc_stdscr(), 0)
        curs_set(0)
        // No peeking at the keyboard during an update: ncurses would flush its output at every peek, a write per line.
        typeahead(-1)
        var colors = 0
        if !noColor, has_colors() {
            start_color()
            use_default_colors()
            colors = tc_colors() >= 256 ? 256 : 8
        }
        options = RenderOptions(colors: colors, unicode: unicode)
    }

    public var size: (width: Int, height: Int) { (Int(tc_cols()), Int(tc_lines())) }

    /// Draws `grid`, touching only the cells that changed since the last one.
    public func present(_ grid: CellGrid) {
        if previous.map({ $0.width != grid.width || $0.height != grid.height }) ?? true { werase(tc_stdscr()) }
        grid.forEachChange(since: previous) { x, y, cell in
            // ncurses scrolls when the bottom-right cell is written with mvadd_wch; leave it to be safe.
            if y == grid.height - 1, x == grid.width - 1 { return }
            var attributes = attr_t(0)
            if cell.style.bold { attributes |= tc_a_bold() }
            if cell.style.reverse { attributes |= tc_a_reverse() }
            _ = tc_put_cell(Int32(y), Int32(x), wchar_t(bitPattern: cell.character.value), attributes, pair(for: cell.style))
        }
        wnoutrefresh(tc_stdscr())
        doupdate()
        previous = grid
    }

    /// The next key, or nil when none is waiting.
    public func readKey() -> Int32? {
        let key = wgetch(tc_stdscr())
        return key == ERR ? nil : key
    }

    /// Forgets what is on screen, so the next frame is drawn whole (after a resize).
    public func invalidate() { previous = nil }

    /// Gives the terminal back.
    public func close() {
        guard isOpen else { return }
        isOpen = false
        curs_set(1)
        endwin()
    }

    private func pair(for style: CellStyle) -> Int32 {
        guard options.colors > 0, style.foreground != .standard || style.background != .standard else { return 0 }
        let key = PairKey(foreground: style.foreground, background: style.background)
        if let pair = pairs[key] { return pair }
        let next = Int32(pairs.count + 1)
        guard next < tc_color_pairs() else { return 0 }
        func number(_ color: TerminalColor) -> Int32 {
            if case .index(let index) = color { Int32(index) } else { -1 }
        }
        init_extended_pair(next, number(style.foreground), number(style.background))
        pairs[key] = next
        return next
    }
}
