import CallSession
import ChannelEngine
import Foundation
import SeededRandom
import TestSupport
import Testing
@testable import CallScreen

private let base: Double = 1_800_000_000

/// A state built the way the app builds it: by applying session events; the `account` scenarios join as "alice".
private func state(_ scenario: String, mode: ScreenMode = .call, tokenServer: String = "http://127.0.0.1:43210 (embedded)",
                   voice: SDKVoice = .standard) -> ScreenState {
    let account = scenario.hasPrefix("account")
    var state = ScreenState(call: CallSettings(channel: "test", uid: 0, account: account ? "alice" : nil, role: .broadcaster,
                            tokenServer: tokenServer, renewMethod: .renew, autoRenew: true, voice: voice), mode: mode)
    func at(_ seconds: Double, _ kind: SessionEvent.Kind) {
        state.take(SessionEvent(time: .milliseconds(Int64(seconds * 1000)), kind: kind), at: base + seconds)
    }
    at(0, .note("embedded token server on http://127.0.0.1:43210, 40 s tokens"))
    at(0, .tokenFetchStarted(reason: "join"))
    at(0.004, .tokenFetched(latency: .milliseconds(4), expiresAt: Int64(base) + 40))
    at(0.004, .engine(.connectionStateChanged(.connecting, reason: .reasonConnecting)))
    if scenario == "connecting" || scenario == "account-connecting" { return state }
    at(0.254, .engine(.connectionStateChanged(.connected, reason: .reasonJoinSuccess)))
    if account { at(0.254, .engine(.didLocalUserRegistered(account: "alice", uid: 5_550_123))) }
    at(0.254, .engine(.didJoinChannel(channel: "test", uid: 5_550_123, elapsed: 250)))
    at(0.254, .engine(.simulatorNotice(.tokenAccepted(expiresAt: Int64(base) + 40, short: false))))
    at(0.6, .engine(.didJoinedOfUid(11_111, elapsed: 600)))
    at(0.9, .engine(.firstRemoteVideoFrame(uid: 11_111, size: VideoSize(width: 640, height: 360), elapsed: 900)))
    at(1.8, .engine(.didJoinedOfUid(22_222, elapsed: 1800)))
    state.tick(unixTime: base + 5)
    if scenario == "connected" || account { return state }
    if scenario == "speaking" {
        at(2, .engine(.networkQuality(uid: 0, tx: .excellent, rx: .good)))
        at(2, .engine(.networkQuality(uid: 11_111, tx: .poor, rx: .unknown)))
        at(2, .engine(.networkQuality(uid: 22_222, tx: .excellent, rx: .excellent)))
        at(3, .engine(.activeSpeaker(uid: 22_222)))
        state.tick(unixTime: base + 5)
        return state
    }
    if scenario == "reconnecting" {
        at(6, .engine(.simulatorNotice(.network(down: true))))
        at(10, .engine(.connectionStateChanged(.reconnecting, reason: .reasonInterrupted)))
        return state
    }
    at(10, .engine(.tokenPrivilegeWillExpire(token: "t")))
    if scenario == "willExpire" { return state }
    at(10, .tokenFetchStarted(reason: "willExpire"))
    at(10, .tokenFetchFailed(error: "cannot reach the token server: connection refused", retryIn: .seconds(1)))
    at(40, .engine(.requestToken))
    at(40, .engine(.connectionStateChanged(.failed, reason: .reasonTokenExpired)))
    return state
}

private func render(_ state: ScreenState, _ width: Int, _ height: Int, options: RenderOptions = RenderOptions(colors: 0, unicode: false)) -> CellGrid {
    ScreenRenderer.render(state, width: width, height: height, options: options, video: { uid in
        .synthetic(VideoFrameSource(uid: uid, frozenAt: state.networkDown ? .seconds(6) : nil))
    }, at: .seconds(5))
}

/// Compares the grid's text with `Snapshots/NAME.txt`; `RECORD_SNAPSHOTS=1 swift test` writes them anew.
private func assertSnapshot(_ grid: CellGrid, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    try assertSnapshot(text: grid.text + "\n", "\(name).txt", sourceLocation: sourceLocation)
}

/// Compares `text` with `Snapshots/FILE`; `RECORD_SNAPSHOTS=1 swift test` writes them anew.
func assertSnapshot(text: String, _ file: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots/\(file)")
    if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] != nil {
        try text.write(to: url, atomically: true, encoding: .utf8)
        return
    }
    let expected = try #require(try? String(contentsOf: url, encoding: .utf8), "no snapshot \(file); record with RECORD_SNAPSHOTS=1",
                                sourceLocation: sourceLocation)
    #expect(text == expected, "differs from Snapshots/\(file):\n\(text)", sourceLocation: sourceLocation)
}

@Suite struct ScreenRendererTests {
    @Test(arguments: ["connecting", "connected", "willExpire", "failed", "reconnecting"], [(80, 24), (120, 40), (200, 60)])
    func snapshots(scenario: String, size: (Int, Int)) throws {
        try assertSnapshot(render(state(scenario), size.0, size.1), "\(scenario)-\(size.0)x\(size.1)")
    }

    /// The header names the SDK; the status, the log and the help speak its words (issue 35).
    @Test(arguments: [SDKProfile.android, .web, .flutter, .unity])
    func eachSDKsScreenSpeaksItsWords(profile: SDKProfile) throws {
        let voice = SDKVoice(profile)
        try assertSnapshot(render(state("failed", voice: voice), 120, 40), "failed-\(profile.rawValue)-120x40")
        var help = state("connected", voice: voice)
        help.type("?")
        try assertSnapshot(render(help, 80, 24), "help-\(profile.rawValue)-80x24")
    }

    @Test func theHelpNamesWhatEachKeyCallsInTheSDKsWords() throws {
        let renew = { (profile: SDKProfile) in ScreenRenderer.keyHelp(in: SDKVoice(profile)).first { $0.keys == "n" }?.line }
        #expect(renew(.ios) == "renew now with the current method: renewToken")
        #expect(renew(.web) == "renew now with the current method: client.renewToken")
        #expect(renew(.unity) == "renew now with the current method: RenewToken")
        let expire = ScreenRenderer.keyHelp(in: SDKVoice(.web)).first { $0.keys == "e" }?.line
        #expect(expire == "expire the token now: token-privilege-did-expire")
        #expect(render(state("connected", voice: SDKVoice(.reactNative)), 120, 40).lines[0].hasPrefix(" tokencall | React Native SDK | channel"))
    }

    @Test func anAccountJoinShowsTheAccountAndThenTheUidTheEngineAssigned() throws {
        let connecting = render(state("account-connecting"), 80, 24)
        #expect(connecting.lines[0].contains("channel test | account alice | uid (assigned at join)"), "\(connecting.lines[0])")
        #expect(connecting.lines[2].contains(" you | alice "), "\(connecting.lines[2])")
        let connected = render(state("account-connected"), 80, 24)
        #expect(connected.lines[0].contains("channel test | account alice | uid 5550123 | broadcaster"), "\(connected.lines[0])")
        #expect(connected.lines[2].hasPrefix(" you | uid 5550123  live "), "a narrow tile keeps the uid whole: \(connected.lines[2])")
        let wide = render(state("account-connected"), 120, 40)
        #expect(wide.lines[2].contains(" you | uid 5550123 | alice  live "), "\(wide.lines[2])")
        try assertSnapshot(wide, "account-connected-120x40")
    }

    /// Each tile names its user's network quality (the worse of sending and receiving), and the active speaker's is
    /// marked by a sign, not a colour, so it shows with --no-color too.
    @Test(arguments: [(80, 24), (120, 40)])
    func qualityAndTheActiveSpeakerShowOnTheTiles(size: (Int, Int)) throws {
        let grid = render(state("speaking"), size.0, size.1)
        try assertSnapshot(grid, "speaking-\(size.0)x\(size.1)")
        let text = grid.text
        #expect(text.contains("> uid 22222 "))
        #expect(!text.contains("> uid 11111") && !text.contains("> you"))
        #expect(text.contains(" net good "), "the local user's: the worse of excellent and good")
        #expect(text.contains(" net excellent"))
        #expect(text.contains(" net poor "), "an unknown direction does not count")
        let unicode = render(state("speaking"), size.0, size.1, options: RenderOptions(colors: 256, unicode: true)).text
        #expect(unicode.contains("♪ uid 22222 "))
        #expect(!render(state("connected"), size.0, size.1).text.contains(" net good "), "no quality before it is reported")
    }

    @Test(arguments: [(59, 20), (60, 19), (30, 10)])
    func aTooSmallTerminalSaysSo(size: (Int, Int)) throws {
        let grid = render(state("connected"), size.0, size.1)
        #expect(grid.text.replacingOccurrences(of: "\n", with: " ").contains("terminal too small (need 60×20)")
                || grid.lines[size.1 / 2].contains("terminal too small") && grid.lines[size.1 / 2 + 1].contains("(need 60×20)"))
        if size == (30, 10) { try assertSnapshot(grid, "too-small-30x10") }
    }

    /// Words only the log has (the status line shows the latest state, not this one) are never cut.
    @Test func aLogLineWrapsBetweenWordsAtEveryWidth() {
        var s = ScreenState(call: CallSettings(channel: "test", uid: 0, account: nil, role: .broadcaster, tokenServer: "embedded", renewMethod: .renew,
                            autoRenew: true), mode: .call)
        func at(_ seconds: Double, _ kind: SessionEvent.Kind) {
            s.take(SessionEvent(time: .milliseconds(Int64(seconds * 1000)), kind: kind), at: base + seconds)
        }
        at(6, .engine(.connectionStateChanged(.connected, reason: .reasonRejoinSuccess)))
        at(10, .tokenFetchStarted(reason: "willExpire"))
        at(10, .tokenFetchFailed(error: "cannot reach the token server: connection refused", retryIn: .seconds(1)))
        at(11, .engine(.connectionStateChanged(.reconnecting, reason: .reasonInterrupted)))
        let words = s.log.entries.flatMap { $0.detail.split(separator: " ").map(String.init) }
        for width in 60...200 {
            let text = render(s, width, 60).text
            for word in words {
                #expect(text.contains(word), "\(word) is cut at width \(width):\n\(text)")
            }
        }
    }

    @Test func theStatusLineAndTheCountdownFollowTheState() {
        let connected = render(state("connected"), 80, 24).text
        #expect(connected.contains("* connected joinSuccess"))
        #expect(connected.contains("expires in 00:35"))
        #expect(connected.contains("uid 5550123"))
        let failed = render(state("failed"), 80, 24).text
        #expect(failed.contains("* failed tokenExpired"))
        #expect(failed.contains("no token in use"))
        #expect(failed.contains("requestToken"))
        #expect(failed.contains("tokenFetchFailed"))
    }

    @Test func aFastCallShowsItsSpeedInTheHeaderAndAPausedOneSaysSo() throws {
        var s = state("connected")
        #expect(render(s, 120, 40).lines[0].hasPrefix(" tokencall | iOS SDK | channel test"))
        s.tick(unixTime: s.now, clock: .running(speed: 3600))
        #expect(render(s, 120, 40).lines[0].hasPrefix(" tokencall 3600x | iOS SDK | channel test"))
        s.tick(unixTime: s.now, clock: .paused(speed: 1))
        let paused = render(s, 120, 40)
        try assertSnapshot(paused, "call-paused-120x40")
        #expect(paused.lines[0].hasPrefix(" tokencall 1x paused | iOS SDK | channel test"))
    }

    @Test func theSpeedKeysOfACallAreInItsHelpEvenOnTheSmallestScreen() {
        var s = state("connected")
        s.type("?")
        let help = render(s, 120, 40).text
        #expect(help.contains("< / >     halve / double the speed of time (1x to 3600x)"))
        #expect(help.contains("space     pause / resume time"))
        let small = render(s, ScreenRenderer.minimumWidth, ScreenRenderer.minimumHeight).text
        for binding in KeyBinding.table(.call) {
            guard let keys = binding.help?.keys else { continue }
            #expect(small.contains(" " + keys.padding(toLength: 10, withPad: " ", startingAt: 0)), "\(keys) at 60x20:\n\(small)")
        }
    }

    @Test func aReplayShowsItsSpeedAndOffersOnlyItsOwnKeys() throws {
        var s = state("connected", mode: .replay(ended: false))
        s.tick(unixTime: s.now, clock: .paused(speed: 4))
        let grid = render(s, 120, 40)
        try assertSnapshot(grid, "replay-paused-120x40")
        #expect(grid.lines[0].hasPrefix(" tokencall replay 4x paused | iOS SDK | channel test"))
        #expect(grid.lines.last?.trimmingCharacters(in: .whitespaces) == "? help  q quit  t timeline  </> speed  space pause")
        s.type("?")
        let help = render(s, 120, 40).text
        #expect(help.contains("space     pause / resume time"))
        #expect(!help.contains("join the channel") && !help.contains("paste the next token"), "no call keys in a replay")
        _ = s.update(.recordingEnded)
        #expect(render(s, 120, 40).lines[0].hasPrefix(" tokencall replay ended |"))
    }

    @Test func theStatusLineShowsTheMistakeOnPurposeUntilItIsPutRight() {
        var s = state("connected")
        s.take(SessionEvent(time: .seconds(6), kind: .mistakeChanged(.wrongUid)))
        let status = render(s, 80, 24).lines[1]
        #expect(status.contains("misconfigure wrong-uid | t 6 s"), "\(status)")
        #expect(render(s, 200, 60).text.contains("0:06 note misconfigure wrong-uid: the embedded"), "the log says it too")
        s.take(SessionEvent(time: .seconds(7), kind: .mistakeChanged(nil)))
        #expect(!render(s, 80, 24).lines[1].contains("misconfigure"))
    }

    @Test func thePasteFieldShowsTheStartAndLengthOfThePasteNeverTheWholeToken() throws {
        var s = state("connected")
        let token = "007eJxTYBA4cO5Vme/frameHhPapLEqwFDk5Fr0x" + String(repeating: "Ab9+", count: 25)
        s.type("p")
        #expect(s.type(token) == [], "every key goes into the field")
        let grid = render(s, 80, 24)
        try assertSnapshot(grid, "paste-field-80x24")
        #expect(grid.lines[1].contains("paste token: 007eJxT~(140 chars)_  Enter applies  Esc cancels"))
        #expect(!grid.text.contains(token.prefix(12)))
        s.press(.control("u"))
        s.type("Bearer " + token)
        #expect(s.press(.enter) == [], "a refused paste is not handed over")
        #expect(render(s, 80, 24).lines[1].contains("paste token: Bearer ~(147 chars)_  it starts with \"Bearer \""))
    }

    @Test func aByHandCallSaysHowLongIsLeftAndWhichKeyPastes() {
        var s = state("connected", tokenServer: "none (tokens pasted by hand)")
        s.take(SessionEvent(time: .seconds(10), kind: .tokenNeeded(secondsLeft: 30)))
        s.tick(unixTime: base + 12)
        #expect(render(s, 120, 40).lines[1].contains("token needed, 00:28 left: press p to paste the next one"))
        s.tick(unixTime: base + 41)
        #expect(render(s, 120, 40).lines[1].contains("token expired: press p to paste a new one"))
        s.take(SessionEvent(time: .seconds(42), kind: .engine(.simulatorNotice(.tokenAccepted(expiresAt: Int64(base) + 600, short: false)))))
        #expect(!render(s, 120, 40).lines[1].contains("token"))
    }

    @Test func tilesReflowAsUsersComeAndGo() {
        var s = state("connected")
        #expect(render(s, 120, 40).text.contains(" uid 22222  live "))
        s.take(SessionEvent(time: .seconds(6), kind: .engine(.didOfflineOfUid(22_222, reason: .quit))))
        let leaving = render(s, 120, 40).text
        #expect(leaving.contains(" uid 22222  left "), "\(leaving)")
        s.take(SessionEvent(time: .seconds(10), kind: .note("later")))
        #expect(!render(s, 120, 40).text.contains(" uid 22222 "))
        #expect(ScreenRenderer.tiling(1, width: 100, height: 30) == (1, 1))
        #expect(ScreenRenderer.tiling(3, width: 120, height: 30) == (3, 1))
        #expect(ScreenRenderer.tiling(4, width: 80, height: 40).columns == 2)
    }

    @Test func aLabelTooLongForItsTileIsShortenedVisibly() {
        var s = state("connected")
        s.take(SessionEvent(time: .seconds(6), kind: .engine(.didJoinChannel(channel: "test", uid: 754_737_879, elapsed: 1))))
        var random = SplitMix64(seed: 1)
        for _ in 0..<3 { s.take(SessionEvent(time: .seconds(6), kind: .engine(.didJoinedOfUid(.random(in: 100_000...999_999, using: &random), elapsed: 1)))) }
        let top = render(s, 60, 20).lines[2]
        // Either the whole uid or a visibly shortened one; never a shorter number that reads as another uid.
        #expect(top.contains("uid 754737879") || top.contains("~"), "\(top)")
        #expect(!top.contains("uid 75473787 "), "\(top)")
    }

    @Test func anAudienceMemberIsNotPublishing() {
        var s = state("connected")
        s.take(SessionEvent(time: .seconds(6), kind: .engine(.didClientRoleChanged(old: .broadcaster, new: .audience))))
        #expect(render(s, 120, 40).text.contains("not publishing"))
    }

    @Test func frozenVideoIsMarked() {
        var s = state("connected")
        s.take(SessionEvent(time: .seconds(6), kind: .engine(.simulatorNotice(.network(down: true)))))
        #expect(render(s, 120, 40).text.contains(" uid 11111  frozen "))
        #expect(render(state("reconnecting"), 120, 40).text.contains(" uid 11111  reconnecting "))
    }

    @Test func colourTerminalsGetHalfBlocksIn256Colours() throws {
        let grid = render(state("connected"), 120, 40, options: RenderOptions(colors: 256, unicode: true))
        let video = grid[10, 10]
        #expect(video.character == "▀")
        #expect(try #require(paletteIndex(video.style.foreground), "expected a palette colour") >= 16)
        #expect(grid.text.contains("● connected"))
        let eight = render(state("connected"), 120, 40, options: RenderOptions(colors: 8, unicode: true))
        #expect(try #require(paletteIndex(eight[10, 10].style.background), "expected a palette colour") < 8)
    }

    private func paletteIndex(_ color: TerminalColor) -> UInt8? {
        if case .index(let index) = color { index } else { nil }
    }

    @Test func theLifetimeBarMarksTheWillExpirePoint() {
        var s = state("connected")
        s.tick(unixTime: base + 10.254)
        let bar = ScreenRenderer.lifetimeBar(s, width: 42, Painter(options: RenderOptions(colors: 0, unicode: false)))
        #expect(bar.count == 42)
        #expect(bar.firstIndex(of: "|").map { bar.distance(from: bar.startIndex, to: $0) } == 1 + 40 * 10 / 40)
        #expect(bar.filter { $0 == "#" }.count == 10)
    }

    @Test func theHelpOverlayListsEveryBindingWhileOpen() {
        var s = state("connected")
        let closed = render(s, 80, 24).text
        s.type("?")
        let open = render(s, 80, 24).text
        #expect(ScreenRenderer.keyHelp().count == KeyBinding.table(.call).count, "every binding has a help line")
        for (keys, line) in ScreenRenderer.keyHelp() {
            #expect(open.contains(" \(keys.padding(toLength: 10, withPad: " ", startingAt: 0))\(line)"))
            #expect(!closed.contains(line))
        }
    }
}
