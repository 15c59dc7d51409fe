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
}
