import CNcurses
import Testing
@testable import CallScreen

/// The presenter is the one place that knows the terminal's key codes; everything above it matches `Key`s.
@Suite struct TerminalKeyTests {
    @Test func theTerminalsCodesBecomeKeys() {
        let ascii = { (character: Character) in Int32(character.asciiValue!) }
        #expect(TerminalPresenter.key(ascii("q")) == .character("q"))
        #expect(TerminalPresenter.key(ascii(" ")) == .character(" "))
        #expect(TerminalPresenter.key(ascii("~")) == .character("~"))
        #expect(TerminalPresenter.key(ascii("c") & 0x1F) == .control("c"))
        #expect(TerminalPresenter.key(ascii("u") & 0x1F) == .control("u"))
        for enter in [ascii("\n"), ascii("\r"), KEY_ENTER] { #expect(TerminalPresenter.key(enter) == .enter) }
        for erase in [ascii("\u{08}"), ascii("\u{7F}"), KEY_BACKSPACE] { #expect(TerminalPresenter.key(erase) == .backspace) }
        #expect(TerminalPresenter.key(ascii("\u{1B}")) == .escape)
        #expect(TerminalPresenter.key(KEY_F0 + 1) == .other("KEY_F(1)"))
        #expect(TerminalPresenter.key(KEY_UP) == .other("KEY_UP"))
    }
}
