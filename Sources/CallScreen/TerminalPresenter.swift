import CNcurses
import Synchronization
#if canImport(Glibc)
import Glibc
import Timers
#endif

/// The only code that touches the terminal, from one thread at a time: set up on the main actor, then used by the
/// frame thread alone until it closes it. ncurses sets the terminal up, reads keys and gives the terminal back;
/// frames are written with the terminal's own escape sequences (from terminfo), only the cells that changed, in one
/// write each: ncurses' own update, which formats every sequence anew, cost more than the rest of a frame together.
/// What it keeps between frames is behind a mutex that only the thread using it takes (a lock a frame, never waited on).
public final class TerminalPresenter: Sendable {
    /// Why the terminal cannot be used.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    public let options: RenderOptions
    private let screen: Mutex<Screen>

    private struct Screen {
        var output: TerminalOutput
        /// The frame on the terminal now; nil when it must be drawn whole.
        var previous: CellGrid?
        var isOpen = true
        var cast: CastRecorder?
    }

    /// Where every frame is recorded as well (`--cast`); set before the screen runs.
    public var cast: CastRecorder? {
        get { screen.withLock { $0.cast } }
        set { screen.withLock { $0.cast = newValue } }
    }

    /// Takes over the terminal. Checks TERM first, so that ncurses never exits the process itself.
    public init(noColor: Bool) throws(Unavailable) {
        guard let term = getenv("TERM").map({ String(cString: $0) }), !term.isEmpty else {
            throw Unavailable(description: "TERM is not set; run with --headless, or set TERM (e.g. TERM=xterm-256color)")
        }
        guard term != "dumb" else {
            throw Unavailable(description: "TERM=dumb cannot draw the call screen; run with --headless, or set TERM=xterm-256color")
        }
        setlocale(LC_ALL, "")
        var unicode = String(cString: tc_codeset()) == "UTF-8"
        if !unicode, setlocale(LC_ALL, "C.UTF-8") != nil { unicode = String(cString: tc_codeset()) == "UTF-8" }
        guard tc_newterm() != nil else {
            throw Unavailable(description: "TERM=\(term) is not a terminal this system knows; run with --headless, or set TERM=xterm-256color")
        }
        guard let cup = tc_capability("cup") else {
            endwin()
            throw Unavailable(description: "TERM=\(term) cannot move the cursor; run with --headless, or set TERM=xterm-256color")
        }
        tc_restore_terminal_on_ending_signals()
        raw()
        noecho()
        nonl()
        keypad(tc_stdscr(), true)
        wtimeout(tc_stdscr(), 0)
        curs_set(0)
        var colors = 0
        if !noColor, has_colors() {
            start_color()
            use_default_colors()
            colors = tc_colors() >= 256 ? 256 : 8
        }
        options = RenderOptions(colors: colors, unicode: unicode)
        screen = Mutex(Screen(output: TerminalOutput(codes: Self.codes(cup: cup, colors: colors), unicode: unicode)))
        // ncurses clears the screen once; from here on it only reads keys.
        wrefresh(tc_stdscr())
    }

    /// This terminal's sequences from terminfo; what it lacks is left out.
    private static func codes(cup: UnsafePointer<CChar>, colors: Int) -> TerminalCodes {
        func bytes(_ text: UnsafePointer<CChar>?) -> [UInt8] {
            guard let text else { return [] }
            return TerminalCodes.withoutPadding(Array(UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self),
                                                                          count: strlen(text))))
        }
        func palette(_ name: String) -> [[UInt8]] {
            guard colors > 0, let capability = tc_capability(name) else { return [] }
            return (0..<colors).map { bytes(tc_format1(capability, Int32($0))) }
        }
        // Most terminals move the cursor with ECMA-48's sequence; that one is written directly, any other formatted.
        let move: (Int, Int, inout [UInt8]) -> Void = if String(cString: cup) == "\u{1B}[%i%p1%d;%p2%dH" {
            ansiMove
        } else {
            { row, column, out in out += bytes(tc_format2(cup, Int32(row), Int32(column))) }
        }
        return TerminalCodes(
            clear: bytes(tc_capability("clear")), reset: bytes(tc_capability("sgr0")), defaultColors: bytes(tc_capability("op")),
            bold: bytes(tc_capability("bold")), reverse: bytes(tc_capability("rev")),
            foreground: palette("setaf"), background: palette("setab"), moveTo: move)
    }

    public var size: (width: Int, height: Int) { (Int(tc_cols()), Int(tc_lines())) }

    /// Draws `grid`, sending only the cells that changed since the last one; returns the grid drawn before, which
    /// it no longer needs (nil after a resize).
    public func present(_ grid: CellGrid) -> CellGrid? {
        screen.withLock { screen in
            let bytes = screen.output.bytes(from: screen.previous, to: grid)
            defer { screen.previous = grid }
            write(bytes)
            screen.cast?.record(bytes, width: grid.width, height: grid.height)
            return screen.previous
        }
    }

    /// Sleeps until a key comes or `duration` passes.
    func waitForKey(upTo duration: Duration) {
        // Once a signal gave the terminal back, its keys are no longer ours (a backtrace's prompt may want one).
        var entry = pollfd(fd: tc_terminal_given_back() == 0 ? STDIN_FILENO : -1, events: Int16(POLLIN), revents: 0)
        _ = poll(&entry, 1, Int32(clamping: max(0, duration.wholeMilliseconds)))
    }

    /// The next key, or the terminal's new size (after which the next frame is drawn whole); nil when nothing is waiting.
    func read() -> ScreenMessage? {
        guard tc_terminal_given_back() == 0 else { return nil }
        let code = wgetch(tc_stdscr())
        guard code != ERR else { return nil }
        guard code != KEY_RESIZE else {
            invalidate()
            let (width, height) = size
            return .resize(width: width, height: height)
        }
        return .key(Self.key(code))
    }

    /// The key `wgetch` read as `code`: the one place the terminal's key codes are known.
    static func key(_ code: Int32) -> Key {
        switch code {
        case 10, 13, KEY_ENTER: .enter
        case 27: .escape
        case 8, 127, KEY_BACKSPACE: .backspace
        case 0x20...0x7E: .character(Character(Unicode.Scalar(UInt8(code))))
        // Ctrl and a letter clears the letter's top three bits: Ctrl-C is 3.
        case 1...26: .control(Character(Unicode.Scalar(UInt8(code) | 0x60)))
        default: .other(keyname(code).map { String(cString: $0) } ?? "code \(code)")
        }
    }

    /// Forgets what is on screen, so the next frame is drawn whole (after a resize, which ncurses may have redrawn).
    func invalidate() {
        screen.withLock { screen in
            screen.previous = nil
            screen.output.forget()
        }
    }

    /// Gives the terminal back.
    public func close() {
        screen.withLock { screen in
            guard screen.isOpen, tc_terminal_given_back() == 0 else { return }
            screen.isOpen = false
            // Attributes off, and the cursor where ncurses left it (home), so that its own last moves land right.
            var bytes = screen.output.codes.reset
            screen.output.codes.moveTo(0, 0, &bytes)
            write(bytes)
            curs_set(1)
            endwin()
        }
    }

    private func write(_ bytes: [UInt8]) {
        guard tc_terminal_given_back() == 0 else { return }
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress! + sent, bytes.count - sent) }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                // A terminal someone made non-blocking: wait until it takes more rather than spin.
                var entry = pollfd(fd: STDOUT_FILENO, events: Int16(POLLOUT), revents: 0)
                _ = poll(&entry, 1, 100)
                continue
            }
            guard count > 0 else { return }
            sent += count
        }
    }
}
