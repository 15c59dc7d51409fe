import Testing
@testable import CallSession

@Suite struct SessionEventTests {
    /// A token server's error reaches the output as text, never as escape sequences for the terminal.
    @Test func controlCharactersFromOutsideArePrintedNotSent() {
        let hostile = "bad\u{1B}[2J\u{1B}[41mINJECTED\rX\u{9B}31m"
        let event = SessionEvent(time: .seconds(1), kind: .tokenFetchFailed(error: hostile, retryIn: nil))
        for line in [event.textLine, event.jsonLine] {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(line)")
            #expect(line.contains(#"\u001b[2J"#) && line.contains(#"\u009b31m"#), "\(line)")
        }
    }

    /// The settings the screen reads are typed, and print as the notes scripts already read.
    @Test func settingChangesPrintAsTheNotesTheyWere() {
        let method = SessionEvent(time: .seconds(1), kind: .renewMethodChanged(.update))
        #expect(method.textLine == #"[   1.000s] note text="renew method update""#)
        #expect(method.jsonLine == #"{"t": 1.000, "event": "note", "text": "renew method update"}"#)
        let auto = SessionEvent(time: .milliseconds(12_345), kind: .autoRenewChanged(on: false))
        #expect(auto.textLine == #"[  12.345s] note text="auto-renew off""#)
        #expect(auto.jsonLine == #"{"t": 12.345, "event": "note", "text": "auto-renew off"}"#)
        #expect(SessionEvent(time: .zero, kind: .autoRenewChanged(on: true)).noteText == "auto-renew on")
    }

    @Test func theTextLineIsTheNameAndTheDetail() {
        let state = SessionEvent(time: .seconds(2), kind: .engine(.connectionStateChanged(.connected, reason: .reasonJoinSuccess)))
        #expect(state.detail == "state=connected reason=joinSuccess")
        #expect(state.textLine == "[   2.000s] connectionStateChanged state=connected reason=joinSuccess")
        #expect(state.noteText == nil)
        let failed = SessionEvent(time: .seconds(3), kind: .tokenFetchFailed(error: "refused", retryIn: nil))
        #expect(failed.detail == "error=refused")
        #expect(failed.textLine == "[   3.000s] tokenFetchFailed error=refused")
        let bare = SessionEvent(time: .seconds(4), kind: .engine(.requestToken))
        #expect(bare.detail == "")
        #expect(bare.textLine == "[   4.000s] requestToken")
    }
}
