import AccessToken
import CallSession
import ChannelEngine
import TestSupport
import Testing
import TokenClient
@testable import CallScreen

private let base: Double = 1_800_000_000

/// The screen of a call, drawn at 80×24 without colours.
private func grid(_ state: ScreenState) -> CellGrid {
    ScreenRenderer.render(state, width: 80, height: 24, options: RenderOptions(colors: 0, unicode: false), video: { _ in nil }, at: .zero)
}

@Suite struct ScreenStateTests {
    @Test func theRenewSettingsComeFromTypedEvents() {
        var state = ScreenState.sample
        state.take(SessionEvent(time: .seconds(1), kind: .autoRenewChanged(on: false)))
        state.take(SessionEvent(time: .seconds(2), kind: .renewMethodChanged(.rejoin)))
        #expect(!state.call.autoRenew)
        #expect(state.call.renewMethod == .rejoin)
        #expect(state.log.entries.map(\.name) == ["note", "note"])
        #expect(state.log.entries.map(\.detail) == ["auto-renew off", "renew method rejoin"])
        state.take(SessionEvent(time: .seconds(3), kind: .note("renew method update")))
        #expect(state.call.renewMethod == .rejoin, "a note's words are shown, not read")
    }

    @Test func aLogEntryShowsTheEventInWords() {
        var state = ScreenState.sample
        let events: [SessionEvent.Kind] = [
            .engine(.connectionStateChanged(.connected, reason: .reasonJoinSuccess)),
            .tokenFetchFailed(error: "cannot reach the token server", retryIn: nil),
            .engine(.requestToken),
            .engine(.renewTokenResult(token: "t", code: .invalidChannelName)),
            .engine(.simulatorNotice(.network(down: true))),
            .engine(.simulatorNotice(.hubLost(reason: "connection refused"))),
        ]
        for kind in events { state.take(SessionEvent(time: .seconds(1), kind: kind)) }
        #expect(state.log.entries.map(\.name) == ["connectionStateChanged", "tokenFetchFailed", "requestToken", "renewTokenResult", "network", "hubLost"])
        #expect(state.log.entries.map(\.detail) == [
            "connected, joinSuccess", "cannot reach the token server; no retry", "the token has expired",
            "code=invalidChannelName", "cut (the simulator's link is down; token requests still reach the token server)", #"reason="connection refused""#,
        ])
    }

    /// The periodic reports change nothing shown, so the screen keeps its drawing; quality and the speaker go on the
    /// tiles, not in the log, and a speaker who leaves is no longer marked.
    @Test func periodicReportsLeaveTheStateAndTileEventsStayOutOfTheLog() {
        var state = ScreenState.sample
        state.take(SessionEvent(time: .seconds(1), kind: .engine(.didJoinedOfUid(7, elapsed: 10))))
        let before = state
        state.take(SessionEvent(time: .milliseconds(2_345), kind: .engine(.reportRtcStats(AgoraChannelStats()))), at: 5)
        state.take(SessionEvent(time: .milliseconds(2_500), kind: .engine(.reportAudioVolumeIndication(speakers: [], totalVolume: 0))), at: 6)
        #expect(state == before)
        state.take(SessionEvent(time: .seconds(3), kind: .engine(.networkQuality(uid: 7, tx: .bad, rx: .good))))
        state.take(SessionEvent(time: .seconds(3), kind: .engine(.networkQuality(uid: 0, tx: .unknown, rx: .unknown))))
        state.take(SessionEvent(time: .seconds(3), kind: .engine(.activeSpeaker(uid: 7))))
        #expect(state.remotes.first?.quality == .bad)
        #expect(state.localQuality == nil, "unknown both ways shows nothing")
        #expect(state.activeSpeaker == 7)
        #expect(state.log == before.log)
        state.take(SessionEvent(time: .seconds(4), kind: .engine(.didOfflineOfUid(7, reason: .quit))))
        #expect(state.activeSpeaker == nil)
    }

    /// A join reads as one token line (fetched, taken by the engine: no notice of its own) and the connection's; a
    /// renewal as the warning and the renewal, the fetch, the engine's answer and its notice on the renewal's line.
    @Test func aJoinAndARenewalCycleReadInAFewLinesWithWallClockTimes() {
        var state = ScreenState.sample
        func at(_ seconds: Double, _ kind: SessionEvent.Kind) {
            state.take(SessionEvent(time: .milliseconds(Int64(seconds * 1000)), kind: kind), at: base + seconds)
        }
        at(0, .tokenFetchStarted(reason: "join"))
        #expect(state.log.entries.last?.name == "tokenFetchStarted")
        at(0.514, .tokenFetched(latency: .milliseconds(514), expiresAt: Int64(base) + 40))
        at(0.52, .engine(.connectionStateChanged(.connecting, reason: .reasonConnecting)))
        at(0.79, .engine(.connectionStateChanged(.connected, reason: .reasonJoinSuccess)))
        at(0.79, .engine(.didJoinChannel(channel: "test", uid: 59, elapsed: 257)))
        at(0.79, .engine(.simulatorNotice(.tokenAccepted(expiresAt: Int64(base) + 40, short: false))))
        at(10.2, .engine(.tokenPrivilegeWillExpire(token: "t")))
        at(10.2, .tokenFetchStarted(reason: "willExpire"))
        at(10.3, .tokenFetched(latency: .milliseconds(97), expiresAt: Int64(base) + 50))
        at(10.3, .engine(.renewTokenResult(token: "t", code: .success)))
        at(10.3, .tokenRenewed(method: .renew))
        at(10.3, .engine(.simulatorNotice(.tokenAccepted(expiresAt: Int64(base) + 50, short: false))))
        #expect(state.log.entries.map { "\(ScreenRenderer.callClock($0.time)) \($0.name) \($0.detail)" } == [
            "0:00 tokenFetched for join in 514 ms, expires 08:00:40 (40s)",
            "0:00 connectionStateChanged connecting, connecting",
            "0:00 connectionStateChanged connected, joinSuccess",
            "0:00 didJoinChannel channel=test uid=59 elapsed=257",
            "0:10 tokenPrivilegeWillExpire expires 08:00:40 (30s)",
            "0:10 tokenRenewed renew, fetched for willExpire in 97 ms, expires 08:00:50 (40s)",
        ])
        let drawn = ScreenRenderer.render(state, width: 200, height: 60, options: RenderOptions(colors: 0, unicode: false),
                                          video: { _ in nil }, at: .zero).text
        #expect(drawn.contains("   0:10 tokenRenewed renew, fetched for willExpire in 97"), "\(drawn)")
        #expect(drawn.contains("          ms, expires 08:00:50 (40s)"), "a line that wraps goes on under the name")
        #expect(!drawn.contains("1800000"), "no unix time on the screen")
        #expect(state.log.entries.filter { $0.name == "tokenRenewed" }.map(\.tone) == [.good])
    }

    @Test func aFailedFetchSaysWhyOnItsLineAndWhenItIsTriedAgain() {
        var state = ScreenState.sample
        state.take(SessionEvent(time: .seconds(10), kind: .tokenFetchStarted(reason: "willExpire")))
        state.take(SessionEvent(time: .seconds(10), kind: .tokenFetchFailed(error: "cannot reach \u{1B}[2J the server", retryIn: .milliseconds(1500))))
        #expect(state.log.entries.map(\.name) == ["tokenFetchFailed"])
        #expect(state.log.entries.last?.detail == "for willExpire: cannot reach \\u001b[2J the server; retry in 2s")
        #expect(state.log.entries.last?.tone == .bad)
        state.take(SessionEvent(time: .seconds(12), kind: .tokenFetchStarted(reason: "willExpire")))
        #expect(state.log.entries.count == 2, "the retry is a line of its own")
    }

    /// A refused renewal ends its token's line: the refusal is a line of its own, and a token the engine takes after it
    /// (one presented again) says so on its own line.
    @Test func aRefusedRenewalIsALineOfItsOwn() {
        var state = ScreenState.sample
        func at(_ seconds: Double, _ kind: SessionEvent.Kind) {
            state.take(SessionEvent(time: .seconds(Int64(seconds)), kind: kind), at: base + seconds)
        }
        at(10, .tokenFetchStarted(reason: "willExpire"))
        at(10, .tokenFetched(latency: .milliseconds(5), expiresAt: Int64(base) + 50))
        at(10, .engine(.renewTokenResult(token: "t", code: .invalidChannelName)))
        at(12, .engine(.simulatorNotice(.tokenAccepted(expiresAt: Int64(base) + 40, short: true))))
        #expect(state.log.entries.map { "\($0.name) \($0.detail)" } == [
            "tokenFetched for willExpire in 5 ms, expires 08:00:50 (40s)",
            "renewTokenResult code=invalidChannelName",
            "tokenAccepted expires 08:00:40 (28s), warned at once",
        ])
        #expect(state.log.entries.map(\.tone) == [.good, .bad, .normal])
    }

    /// An expiry no token can have (a hostile recording's) is drawn, not trapped on.
    @Test(arguments: [Int64.min, Int64.max])
    func anExpiryAtTheEndsOfTimeIsDrawn(expiresAt: Int64) {
        var state = ScreenState.sample
        state.take(SessionEvent(time: .seconds(1), kind: .tokenFetchStarted(reason: "join")), at: base)
        state.take(SessionEvent(time: .seconds(1), kind: .tokenFetched(latency: .milliseconds(3), expiresAt: expiresAt)), at: base)
        state.take(SessionEvent(time: .seconds(1), kind: .engine(.simulatorNotice(.tokenAccepted(expiresAt: expiresAt, short: false)))), at: base)
        state.take(SessionEvent(time: .seconds(2), kind: .engine(.tokenPrivilegeWillExpire(token: "t"))), at: base + 1)
        let text = grid(state).text
        #expect(text.contains(expiresAt < 0 ? "expired " : "expires in "))
        #expect(state.log.entries.count == 2)
    }

    /// The stamp is the call's clock, to the second, in hours once the call is that long.
    @Test func theStampIsTheCallsClock() {
        #expect(ScreenRenderer.callClock(.milliseconds(9_999)) == "0:09")
        #expect(ScreenRenderer.callClock(.seconds(754)) == "12:34")
        #expect(ScreenRenderer.callClock(.seconds(3723)) == "1:02:03")
        #expect(EventLog.span(40) == "40s")
        #expect(EventLog.span(725) == "12m05s")
        #expect(EventLog.span(-3) == "0s")
    }
}

/// A key, the effect it yields, and the screen it draws: the screen driven by messages alone.
@Suite struct ScreenMessageTests {
    @Test func aCallKeyYieldsItsSessionCommandAndLeavesTheScreen() {
        var state = ScreenState.sample
        let before = grid(state)
        #expect(state.type("n") == [.session(.renew)])
        #expect(state.type("+") == [.session(.addUser)])
        #expect(state.type(">") == [.clock(.faster)])
        #expect(grid(state) == before, "the session's events, not the key, change what is shown")
        #expect(state.press(.control("c")) == [.quit])
    }

    @Test func anUnknownKeySaysSoInACallsLog() {
        var state = ScreenState.sample
        #expect(state.type("z") == [.session(.say("key 'z' does nothing; press ? for the keys"))])
        #expect(state.press(.other("KEY_F(1)")) == [.session(.say("key KEY_F(1) does nothing; press ? for the keys"))])
    }

    @Test func theHelpKeyDrawsTheOverlayAndAnyKeyClosesIt() {
        var state = ScreenState.sample
        #expect(state.type("?") == [])
        #expect(grid(state).text.contains("keys (any key closes)"))
        #expect(state.type("j") == [])
        #expect(!grid(state).text.contains("keys (any key closes)"))
    }

    /// `p`, a token typed in and Enter: the field shows the start of it, and Enter yields the token to hand over.
    @Test func aPastedTokenIsReadOnEnterAndHandedOver() throws {
        var state = ScreenState.sample
        state.tick(unixTime: base)
        let token = try AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, channel: "test",
                                              user: .uid(1), role: .publisher, tokenExpire: 600, privilegeExpire: 600,
                                              issuedAt: UInt32(base), salt: 1)
        #expect(state.type("p") == [])
        #expect(grid(state).lines[1].contains("paste token: _  Enter applies  Esc cancels"))
        #expect(state.type(token + "q") == [], "every key goes into the field, q too")
        #expect(state.press(.backspace) == [])
        #expect(grid(state).lines[1].contains("paste token: 007eJxT~(\(token.count) chars)_"))
        #expect(state.press(.enter) == [.paste(try PastedToken(token, unixTime: base))])
        #expect(state.paste == .closed)
        #expect(!grid(state).lines[1].contains("paste token"))
    }

    @Test func aBadPasteKeepsTheFieldOpenSayingWhy() {
        var state = ScreenState.sample
        state.type("p")
        state.type("not a token")
        #expect(state.press(.enter) == [])
        guard case .refused(let text, let why) = state.paste else { Issue.record("\(state.paste)"); return }
        #expect(text == "not a token")
        #expect(grid(state).lines[1].contains(String(why.prefix(20))))
        #expect(state.press(.escape) == [])
        #expect(state.paste == .closed)
    }

    @Test func aTickMovesTheCountdownAndTheClockPhaseReachesTheHeader() {
        var state = ScreenState.sample
        state.take(SessionEvent(time: .seconds(1), kind: .engine(.simulatorNotice(.tokenAccepted(expiresAt: Int64(base) + 40, short: false)))),
                   at: base)
        state.tick(unixTime: base + 5.9)
        #expect(grid(state).text.contains("expires in 00:35"))
        state.tick(unixTime: base + 6, clock: .paused(speed: 8))
        #expect(grid(state).lines[0].hasPrefix(" tokencall 8x paused |"))
        #expect(grid(state).text.contains("expires in 00:34"))
    }
}
