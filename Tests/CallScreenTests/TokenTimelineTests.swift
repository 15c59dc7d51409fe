import CallSession
import ChannelEngine
import Testing
@testable import CallScreen

private let base: Int64 = 1_800_000_000

/// A screen's state fed events as the app feeds them: the unix time moves with the call's time.
private struct Call {
    var state = ScreenState(call: CallSettings(channel: "test", uid: 0, role: .broadcaster, tokenServer: "http://127.0.0.1:43210 (embedded)",
                            renewMethod: .renew, autoRenew: true))

    mutating func at(_ seconds: Double, _ kind: SessionEvent.Kind) {
        state.take(SessionEvent(time: .milliseconds(Int64((seconds * 1000).rounded())), kind: kind), at: Double(base) + seconds)
    }

    mutating func state(_ connection: AgoraConnectionState, _ reason: AgoraConnectionChangedReason, at seconds: Double) {
        at(seconds, .engine(.connectionStateChanged(connection, reason: reason)))
    }

    /// The session fetches a token expiring at `expiresAt` (seconds after the base) and the engine takes it.
    mutating func token(expiresAt: Int64, at seconds: Double) {
        at(seconds, .tokenFetched(latency: .milliseconds(4), expiresAt: base + expiresAt))
        at(seconds, .engine(.simulatorNotice(.tokenAccepted(expiresAt: base + expiresAt, short: false))))
    }

    /// `renewToken` or `updateChannel`: the session reports the renewal, then the engine's notice arrives.
    mutating func renew(_ method: RenewMethod, expiresAt: Int64, at seconds: Double) {
        at(seconds, .engine(.tokenPrivilegeWillExpire(token: "t")))
        at(seconds, .tokenFetched(latency: .milliseconds(4), expiresAt: base + expiresAt))
        at(seconds, .tokenRenewed(method: method))
        at(seconds, .engine(.simulatorNotice(.tokenAccepted(expiresAt: base + expiresAt, short: false))))
    }

    /// Leave and join again with a fresh token: the session reports the renewal once connected.
    mutating func rejoin(expiresAt: Int64, at seconds: Double) {
        state(.disconnected, .reasonLeaveChannel, at: seconds)
        state(.connecting, .reasonConnecting, at: seconds)
        token(expiresAt: expiresAt, at: seconds)
        state(.connected, .reasonJoinSuccess, at: seconds + 0.25)
        at(seconds + 0.25, .tokenRenewed(method: .rejoin))
    }

    mutating func now(_ seconds: Double) {
        _ = state.update(.tick(ScreenTime(unixTime: Double(base) + seconds, sessionTime: .milliseconds(Int64(seconds * 1000)))))
    }

    var lives: [TokenTimeline.Life] { state.timeline.lives }
}

/// Forty-second tokens: renewed, then the server is stopped and one expires, then recovered, renewed by update and
/// by a rejoin.
private func eventfulCall() -> Call {
    var call = Call()
    call.state(.connecting, .reasonConnecting, at: 0)
    call.token(expiresAt: 40, at: 0.004)
    call.state(.connected, .reasonJoinSuccess, at: 0.254)
    call.renew(.renew, expiresAt: 50, at: 10.004)
    call.at(20, .engine(.tokenPrivilegeWillExpire(token: "t")))
    for retry in [20.0, 22, 26, 34, 45] {
        call.at(retry, .tokenFetchFailed(error: "cannot reach the token server: connection refused", retryIn: .seconds(2)))
    }
    call.at(50, .engine(.requestToken))
    call.state(.failed, .reasonTokenExpired, at: 50)
    call.token(expiresAt: 92, at: 52)
    call.state(.connecting, .reasonConnecting, at: 52)
    call.state(.connected, .reasonJoinSuccess, at: 52.25)
    call.at(52.25, .tokenRenewed(method: .renew))
    call.renew(.update, expiresAt: 102, at: 62)
    call.rejoin(expiresAt: 110, at: 66)
    call.now(75)
    return call
}

private func render(_ state: ScreenState, _ width: Int, _ height: Int, unicode: Bool = false) -> CellGrid {
    ScreenRenderer.render(state, width: width, height: height, options: RenderOptions(colors: unicode ? 256 : 0, unicode: unicode),
                          video: { .synthetic(VideoFrameSource(uid: $0)) }, at: .seconds(5))
}

@Suite struct TokenTimelineTests {
    @Test func eachTokenEndsAsItReallyDid() {
        let call = eventfulCall()
        #expect(call.lives.map(\.end?.how) == [.renewed(.renew), .expired, .renewed(.update), .renewed(.rejoin), nil])
        #expect(call.lives.map(\.number) == [1, 2, 3, 4, 5])
        #expect(call.lives.map(\.issuedAt) == [.milliseconds(4), .milliseconds(10_004), .seconds(52), .seconds(62), .seconds(66)])
        #expect(call.lives[1].expiresAt == .seconds(50), "issued at 10.004 s for 39.996 s")
        #expect(call.lives[1].end?.at == .seconds(50), "it ran out at requestToken")
        #expect(call.lives[1].warnedAt == .seconds(20))
        #expect(call.lives[4].warnedAt == nil)
    }

    @Test func fetchFailuresRequestTokenAndStateChangesAreMarks() {
        let marks = eventfulCall().state.timeline.marks
        #expect(marks.filter { $0.kind == .fetchFailed }.map(\.time) == [20, 22, 26, 34, 45].map { .seconds($0) })
        #expect(marks.filter { $0.kind == .requestToken }.map(\.time) == [.seconds(50)])
        let states = marks.compactMap { mark -> AgoraConnectionState? in
            if case .connection(let state) = mark.kind { state } else { nil }
        }
        #expect(states == [.connecting, .connected, .failed, .connecting, .connected, .disconnected, .connecting, .connected])
    }

    @Test func aTokenExpiredOnPurposeEndsWhenItIsExpiredNotAtItsExpiry() {
        var call = Call()
        call.token(expiresAt: 40, at: 0)
        call.at(5, .engine(.requestToken))
        #expect(call.lives[0].end?.how == .expired)
        #expect(call.lives[0].end?.at == .seconds(5))
    }

    @Test func leavingEndsTheTokenAndAJoinLaterReplacesItWithoutARenewal() {
        var call = Call()
        call.token(expiresAt: 40, at: 0)
        call.state(.disconnected, .reasonLeaveChannel, at: 5)
        call.token(expiresAt: 48, at: 8)
        #expect(call.lives.map(\.end?.how) == [.left, nil])
        call.token(expiresAt: 60, at: 9)
        #expect(call.lives.map(\.end?.how) == [.left, .replaced, nil], "accepted without a renewal said")
    }

    @Test func theSameTokenPresentedAgainIsOneLife() {
        var call = Call()
        call.token(expiresAt: 40, at: 0)
        call.renew(.renew, expiresAt: 40, at: 10)
        #expect(call.lives.count == 1)
        #expect(call.lives[0].end == nil)
    }

    @Test func theHistoryKeepsTheLastTokensAndTheirMarks() {
        var call = Call()
        for index in 0..<12 {
            let start = Double(index * 10)
            call.at(start, .tokenFetchFailed(error: "refused", retryIn: .seconds(1)))
            call.renew(.renew, expiresAt: Int64(start) + 40, at: start + 0.5)
        }
        #expect(call.lives.count == TokenTimeline.lifeLimit)
        #expect(call.lives.first?.number == 5)
        #expect(call.state.timeline.marks.first?.time == .seconds(50), "marks before the oldest token kept go with it")
    }

    @Test func aLifetimeThatCannotBeIsDrawnAsNone() {
        var call = Call()
        call.at(1, .engine(.simulatorNotice(.tokenAccepted(expiresAt: Int64.min, short: true))))
        call.at(2, .engine(.simulatorNotice(.tokenAccepted(expiresAt: Int64.max, short: false))))
        #expect(call.lives[0].expiresAt == .seconds(1))
        #expect(call.lives[1].expiresAt == .seconds(2) + TokenTimeline.longestLife)
        _ = render(call.state, 80, 24)
    }

    @Test(arguments: [(80, 24), (120, 40), (200, 60)])
    func snapshots(size: (Int, Int)) throws {
        var call = eventfulCall()
        call.state.type("t")
        try assertSnapshot(text: render(call.state, size.0, size.1).text + "\n", "timeline-\(size.0)x\(size.1).txt")
    }

    @Test func inUnicodeEachEndingHasItsGlyph() throws {
        var call = eventfulCall()
        call.state.type("t")
        let grid = render(call.state, 120, 40, unicode: true)
        try assertSnapshot(text: grid.text + "\n", "timeline-unicode-120x40.txt")
        let rows = grid.lines
        let row = { (number: Int) in try #require(rows.first { $0.hasPrefix(" #\(number) ") }) }
        #expect(try row(1).contains("┫ ") && row(1).contains(" renewed renew "))
        #expect(try row(2).contains("╋━") && row(2).contains("━╳ ") && row(2).contains(" expired "))
        #expect(try row(5).contains("━┈") && row(5).contains(" live 00:35"))
        #expect(rows.contains { $0.hasPrefix(" fetch") && $0.filter { $0 == "×" }.count == 5 && $0.contains("!") })
    }

    @Test func coloursSayLiveWarnedAndExpired() {
        var call = eventfulCall()
        call.state.type("t")
        let grid = render(call.state, 120, 40, unicode: true)
        let bars = grid.lines.indices.filter { grid.lines[$0].hasPrefix(" #") }
        /// The colours `character` is drawn in on the tokens' bars.
        func colour(_ character: Unicode.Scalar) -> Set<TerminalColor> {
            Set(bars.flatMap { y in (0..<grid.width).map { grid[$0, y] } }.filter { $0.character == character }.map(\.style.foreground))
        }
        #expect(colour("╳") == [.red])
        #expect(colour("╋") == [.yellow])
        #expect(colour("━").isSuperset(of: [.green, .yellow]))
    }

    @Test func tTogglesThePanelInPlaceOfTheVideo() {
        var call = eventfulCall()
        #expect(KeyCommand(key: .character("t")) == .timeline)
        #expect(!render(call.state, 80, 24).text.contains("token timeline"))
        #expect(call.state.type("t") == [], "the screen alone changes")
        let shown = render(call.state, 80, 24)
        #expect(shown.text.contains("token timeline (t hides)"))
        #expect(!shown.text.contains("uid 11111"), "no video tiles under it")
        #expect(shown.text.contains("expires in 00:35"), "the token panel stays")
        let smallest = render(call.state, 60, 20).lines
        #expect(smallest.contains { $0.hasPrefix(" #5 ") && $0.contains("live 00:35") }, "the smallest screen still shows the token in use")
        call.state.type("t")
        #expect(!render(call.state, 80, 24).text.contains("token timeline"))
    }

    @Test(arguments: [45, 3599, 3600, 3900, 86_400])
    func axisTimesReadShort(seconds: Int64) {
        let expected: [Int64: String] = [45: "45s", 3599: "59m59s", 3600: "1h", 3900: "1h05m", 86_400: "24h"]
        #expect(ScreenRenderer.shortTime(seconds) == expected[seconds])
    }
}
