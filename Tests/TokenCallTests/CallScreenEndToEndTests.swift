import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Drives the real call screen in a detached tmux session, as a person would, reading the screen back.
final class TmuxScreen {
    let socket = "tokencall-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let session = "call"

    init(width: Int, height: Int, command: String) throws {
        try tmux("new-session -d -s \(session) -x \(width) -y \(height) \(Self.quoted(command))")
    }

    /// tokencall with `arguments` on a 120×40 screen that, once it exits, shows `EXIT=<status>` and stays.
    static func tokencall(_ arguments: String) throws -> TmuxScreen {
        try TmuxScreen(width: 120, height: 40,
                       command: "TERM=tmux-256color \(TokenCallProcess.binary.path) \(arguments); echo EXIT=$?; sleep 60")
    }

    deinit { _ = try? tmux("kill-server") }

    /// Runs `tmux -L <socket> <arguments>` through the shell and returns what it printed.
    @discardableResult
    func tmux(_ arguments: String) throws -> String {
        try Self.shell("tmux -L \(socket) \(arguments)")
    }

    /// Runs a shell command and returns its standard output.
    static func shell(_ command: String) throws -> String {
        guard let pipe = popen("\(command) 2>/dev/null", "r") else { throw POSIXError(.EIO) }
        var output = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, pipe)
            if count == 0 { break }
            output += buffer[..<count]
        }
        pclose(pipe)
        return String(decoding: output, as: UTF8.self)
    }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    var screen: String { (try? tmux("capture-pane -p -t \(session)")) ?? "" }

    func press(_ key: String) throws { try tmux("send-keys -t \(session) \(Self.quoted(key))") }

    func resize(width: Int, height: Int) throws {
        try tmux("resize-window -t \(session) -x \(width) -y \(height)")
    }

    /// Polls every 50 ms until the screen shows `text`; records the last screen when it never does.
    @discardableResult
    func waitFor(_ text: String, timeout: Duration = .seconds(15), sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if screen.contains(text) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("the screen never showed \"\(text)\"; last screen:\n\(screen)", sourceLocation: sourceLocation)
        return false
    }
}

@Suite(.serialized) struct CallScreenEndToEndTests {
    private var tmuxAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") }

    @Test func aPersonWatchesARenewalLeavesRejoinsResizesAndQuits() throws {
        try #require(tmuxAvailable, "tmux is needed; make deps installs it")
        let screen = try TmuxScreen.tokencall("--token-lifetime 35 --seed 2")
        screen.waitFor("● connected")
        screen.waitFor("expires in 00:")
        screen.waitFor("tokenPrivilegeWillExpire")
        screen.waitFor("tokenRenewed")
        try screen.press("t")
        screen.waitFor("token timeline (t hides)")
        screen.waitFor("renewed renew")
        try screen.press("t")
        try screen.press("l")
        screen.waitFor("● disconnected")
        #expect(!screen.screen.contains("token timeline"), "t again brings the video back")
        try screen.press("j")
        screen.waitFor("● connected")
        try screen.press("?")
        screen.waitFor("keys (any key closes)")
        try screen.press("x")
        try screen.resize(width: 70, height: 24)
        screen.waitFor("events ───")
        #expect(screen.screen.split(separator: "\n").allSatisfy { $0.count <= 70 })
        try screen.resize(width: 50, height: 15)
        screen.waitFor("terminal too small")
        try screen.resize(width: 120, height: 40)
        screen.waitFor("token ───")
        try screen.press("q")
        screen.waitFor("EXIT=0")
    }

    /// A call started at 1x sped up to 3600x with `>`: its hour-long token warns and is renewed at once; space pauses it.
    @Test func aPersonSpeedsUpALiveCallAndPausesIt() throws {
        try #require(tmuxAvailable, "tmux is needed; make deps installs it")
        let screen = try TmuxScreen.tokencall("--token-lifetime 3600 --seed 2")
        screen.waitFor("● connected")
        screen.waitFor("expires in 59:")
        try screen.press(">")
        screen.waitFor("tokencall 2x │")
        for _ in 0..<11 { try screen.press(">") }
        screen.waitFor("tokencall 3600x │")
        screen.waitFor("tokenPrivilegeWillExpire")
        screen.waitFor("tokenRenewed")
        try screen.press(" ")
        screen.waitFor("tokencall 3600x paused │")
        screen.waitFor("time: paused (at 3600x)")
        try screen.press(",")
        screen.waitFor("tokencall 1800x paused │")
        try screen.press(" ")
        screen.waitFor("tokencall 1800x │")
        try screen.press("q")
        screen.waitFor("EXIT=0")
    }

    /// `--duration` ends the call screen as it ends a headless call: a scripted `--cast` ends by itself.
    @Test func theCallScreenLeavesWhenTheDurationIsOver() throws {
        try #require(tmuxAvailable, "tmux is needed; make deps installs it")
        let screen = try TmuxScreen.tokencall("--duration 3 --seed 7")
        screen.waitFor("● connected")
        screen.waitFor("EXIT=0", timeout: .seconds(30))
        #expect(!screen.screen.contains("● connected"), "the call screen is gone")
    }

    /// The duration is in the call's time: at 3600x, an hour of call is over in a second or so.
    @Test func theDurationIsTheCallsTime() throws {
        try #require(tmuxAvailable, "tmux is needed; make deps installs it")
        let screen = try TmuxScreen.tokencall("--duration 3600 --speed 3600 --seed 7")
        screen.waitFor("EXIT=0", timeout: .seconds(30))
    }

    @Test func anAccountJoinShowsTheAccountAndTheUidTheEngineGaveIt() throws {
        try #require(tmuxAvailable, "tmux is needed; make deps installs it")
        let screen = try TmuxScreen.tokencall("--account alice --remote-users 1 --seed 6")
        screen.waitFor("● connected")
        screen.waitFor("didLocalUserRegistered")
        let lines = screen.screen.split(separator: "\n")
        let header = try #require(lines.first)
        let uid = try #require(header.split(separator: " │ ").first { $0.hasPrefix("uid ") }?.dropFirst(4), "\(header)")
        #expect(UInt32(uid) != nil && uid != "0", "\(header)")
        #expect(header.contains("channel test │ account alice │ uid \(uid) │ broadcaster"), "\(header)")
        #expect(lines[2].contains("you │ uid \(uid) │ alice"), "the local tile: \(lines[2])")
        try screen.press("q")
        screen.waitFor("EXIT=0")
    }

    @Test func aPersonSeesTheSDKRefuseAMistakeOnPurposeAndPutsItRightWithX() throws {
        try #require(tmuxAvailable, "tmux is needed; make deps installs it")
        let screen = try TmuxScreen.tokencall("--misconfigure wrong-channel --token-lifetime 32 --seed 4")
        screen.waitFor("misconfigure wrong-channel │ t ")
        // A 32 s token warns 2 s in; one that comes with less than the 30 s lead left is renewed halfway, ~15 s in.
        screen.waitFor("code=invalidChannelName", timeout: .seconds(30))  // renewTokenResult's, on the line below its name
        #expect(!screen.screen.contains("tokenRenewed"))
        for _ in 0..<4 { try screen.press("x") }  // wrong-app, stale, expired, none
        screen.waitFor("misconfigure none")
        screen.waitFor("tokenRenewed", timeout: .seconds(30))
        #expect(!screen.screen.contains("wrong-channel │"), "the status line no longer shows a mistake")
        try screen.press("q")
        screen.waitFor("EXIT=0")
    }

    @Test func aPersonPastesTheNextTokenWithP() throws {
        try #require(tmuxAvailable, "tmux is needed; make deps installs it")
        let binary = TokenCallProcess.binary.path
        // 33 s: the warning (30 s before the end) comes 3 s in.
        let first = try consoleToken(lifetime: 33), next = try consoleToken(lifetime: 600)
        let screen = try TmuxScreen(width: 120, height: 40, command: "TERM=tmux-256color \(binary) --token \(first) --remote-users 0 --seed 4; "
                                    + "echo EXIT=$?; sleep 60")
        screen.waitFor("token server none (tokens pasted by hand)")
        screen.waitFor("● connected")
        screen.waitFor("token needed, 00:")
        #expect(screen.screen.contains("left: press p to paste the next one"))
        try screen.press("p")
        screen.waitFor("paste token: _  Enter applies  Esc cancels")
        try screen.press("q")
        screen.waitFor("paste token: q_")
        try screen.tmux("send-keys -t \(screen.session) BSpace")
        screen.waitFor("paste token: _")
        try screen.tmux("send-keys -t \(screen.session) -l \(TmuxScreen.quoted(next))")
        screen.waitFor("paste token: \(next.prefix(7))…(\(next.count) chars)_")
        #expect(!screen.screen.contains(next.prefix(12)), "the field never shows the whole token")
        try screen.press("Enter")
        screen.waitFor("tokenRenewed")
        screen.waitFor("expires in 09:")
        #expect(!screen.screen.contains("token needed"))
        try screen.press("p")
        screen.waitFor("paste token: _")
        try screen.press("Escape")
        screen.waitFor("● connected")
        try screen.press("q")
        screen.waitFor("EXIT=0")
    }

    /// Starts a call in tmux that, once tokencall exits, prints its exit status and whether the terminal was left raw
    /// (no line editing or echo), then waits there; returns the screen and tokencall's pid.
    private func startCall(marker: String) throws -> (TmuxScreen, pid_t) {
        let binary = TokenCallProcess.binary.path
        let mode = "if stty -a | grep -qE -- '(^| )-(icanon|echo)( |$)'; then echo TERMINAL=raw; else echo TERMINAL=cooked; fi"
        let screen = try TmuxScreen(width: 100, height: 30,
                                    command: "TERM=tmux-256color \(binary) --seed \(marker); echo EXIT=$?; \(mode); sleep 60")
        screen.waitFor("● connected")
        let found = try TmuxScreen.shell("pgrep -f -- '^/.*tokencall --seed \(marker)$'")
        return (screen, try #require(Int32(found.split(separator: "\n").first ?? ""), "no tokencall process found"))
    }

    @Test(arguments: [SIGTERM, SIGHUP])
    func aStopSignalLeavesAndGivesTheTerminalBack(signal: Int32) throws {
        try #require(tmuxAvailable, "tmux is needed; make deps installs it")
        let (screen, pid) = try startCall(marker: "\(getpid())\(signal)")
        kill(pid, signal)
        screen.waitFor("EXIT=0")
        #expect(!screen.screen.contains("● connected"), "the call screen is gone, the shell's output is back")
        screen.waitFor("TERMINAL=cooked")
    }

    /// A signal the call does not handle still ends it with the terminal as it was: cooked, off the alternate screen,
    /// and a crash report (SIGQUIT's backtrace) below the shell's lines rather than over the call screen.
    @Test(arguments: [SIGUSR1, SIGALRM, SIGQUIT])
    func aSignalThatEndsTheProcessGivesTheTerminalBackFirst(signal: Int32) throws {
        try #require(tmuxAvailable, "tmux is needed; make deps installs it")
        let (screen, pid) = try startCall(marker: "\(getpid())\(signal)")
        kill(pid, signal)
        // The Swift runtime's backtrace on SIGQUIT offers to debug for 30 s; any key declines.
        let deadline = ContinuousClock.now + .seconds(15)
        while !screen.screen.contains("TERMINAL="), ContinuousClock.now < deadline {
            if screen.screen.contains("any other key to quit") { try screen.press("q") }
            Thread.sleep(forTimeInterval: 0.1)
        }
        screen.waitFor("TERMINAL=")
        #expect(screen.screen.contains("TERMINAL=cooked"), "\(screen.screen)")
        #expect(try screen.tmux("display-message -p -t \(screen.session) '#{alternate_on}'") == "0\n")
        #expect(!screen.screen.contains("● connected"), "the call screen is gone, the shell's output is back")
    }

    @Test func anUnusableTermIsAClearLineThenWhereTheHelpIsAndExit64() throws {
        try #require(tmuxAvailable, "tmux is needed; make deps installs it")
        let binary = TokenCallProcess.binary.path
        let screen = try TmuxScreen(width: 100, height: 10, command: "TERM=no-such-terminal \(binary); echo EXIT=$?; sleep 30")
        screen.waitFor("EXIT=64")
        #expect(screen.screen.contains("tokencall join: TERM=no-such-terminal is not a terminal this system knows; run with --headless"))
        #expect(screen.screen.contains("see tokencall join --help"))
    }
}

@Suite(.serialized) struct ReplayScreenEndToEndTests {
    /// A headless call recorded, then replayed on the screen: paused, sped up, played to its end, quit.
    @Test func aPersonReplaysARecordedCallPausesSpeedsItUpAndQuits() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is needed; make deps installs it")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokencall-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let join = try TokenCallProcess.run(["join", "--headless", "--duration", "8", "--seed", "6", "--record", path])  // long enough to pause on a slow machine
        #expect(join.status == 0, "\(join.stderr)")
        let binary = TokenCallProcess.binary.path
        let screen = try TmuxScreen(width: 120, height: 40,
                                    command: "TERM=tmux-256color \(binary) replay \(path); echo EXIT=$?; sleep 60")
        screen.waitFor("tokencall replay 1x")
        screen.waitFor("? help  q quit  t timeline  </> speed  space pause")
        try screen.press(" ")
        screen.waitFor("tokencall replay 1x paused")
        try screen.press(">")
        screen.waitFor("tokencall replay 2x paused")
        try screen.press(" ")
        screen.waitFor("tokencall replay ended")
        screen.waitFor("sessionEnded")
        #expect(!screen.screen.contains("j join"))
        try screen.press("q")
        screen.waitFor("EXIT=0")
    }
}
