import CallSession
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
}
