import CallSession
import ChannelEngine
import Testing
@testable import CallScreen

@Suite struct ScreenStateTests {
    @Test func theRenewSettingsComeFromTypedEvents() {
        var state = ScreenState.sample
        state.apply(SessionEvent(time: .seconds(1), kind: .autoRenewChanged(on: false)))
        state.apply(SessionEvent(time: .seconds(2), kind: .renewMethodChanged(.rejoin)))
        #expect(!state.autoRenew)
        #expect(state.renewMethod == .rejoin)
        #expect(state.log.map(\.name) == ["note", "note"])
        #expect(state.log.map(\.detail) == ["auto-renew off", "renew method rejoin"])
        state.apply(SessionEvent(time: .seconds(3), kind: .note("renew method update")))
        #expect(state.renewMethod == .rejoin, "a note's words are shown, not read")
    }

    @Test func aLogEntryShowsTheEventsDetail() {
        var state = ScreenState.sample
        let events: [SessionEvent.Kind] = [
            .engine(.connectionStateChanged(.connected, reason: .reasonJoinSuccess)),
            .tokenFetchFailed(error: "cannot reach the token server", retryIn: nil),
            .engine(.requestToken),
        ]
        for kind in events { state.apply(SessionEvent(time: .seconds(1), kind: kind)) }
        #expect(state.log.map(\.detail) == [
            "state=connected reason=joinSuccess", #"error="cannot reach the token server""#, "",
        ])
    }

    /// The periodic reports change nothing shown, so the screen keeps its drawing; quality and the speaker go on the
    /// tiles, not in the log, and a speaker who leaves is no longer marked.
    @Test func periodicReportsLeaveTheStateAndTileEventsStayOutOfTheLog() {
        var state = ScreenState.sample
        state.apply(SessionEvent(time: .seconds(1), kind: .engine(.didJoinedOfUid(7, elapsed: 10))))
        let before = state
        state.apply(SessionEvent(time: .milliseconds(2_345), kind: .engine(.reportRtcStats(AgoraChannelStats()))))
        state.apply(SessionEvent(time: .milliseconds(2_500), kind: .engine(.reportAudioVolumeIndication(speakers: [], totalVolume: 0))))
        #expect(state == before)
        state.apply(SessionEvent(time: .seconds(3), kind: .engine(.networkQuality(uid: 7, tx: .bad, rx: .good))))
        state.apply(SessionEvent(time: .seconds(3), kind: .engine(.networkQuality(uid: 0, tx: .unknown, rx: .unknown))))
        state.apply(SessionEvent(time: .seconds(3), kind: .engine(.activeSpeaker(uid: 7))))
        #expect(state.remotes.first?.quality == .bad)
        #expect(state.localQuality == nil, "unknown both ways shows nothing")
        #expect(state.activeSpeaker == 7)
        #expect(state.log == before.log)
        state.apply(SessionEvent(time: .seconds(4), kind: .engine(.didOfflineOfUid(7, reason: .quit))))
        #expect(state.activeSpeaker == nil)
    }
}
