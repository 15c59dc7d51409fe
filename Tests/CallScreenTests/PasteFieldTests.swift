import Testing
import TokenClient
@testable import CallScreen

private func keys(_ text: String) -> [Key] { text.map { .character($0) } }

@Suite struct PasteFieldTests {
    @Test func pOpensAnEmptyFieldAndIsInTheHelp() {
        var state = ScreenState.sample
        #expect(KeyCommand(key: .character("p")) == .paste)
        #expect(state.type("p") == [])
        #expect(state.paste == .editing(""))
        #expect(ScreenRenderer.keyHelp().contains { $0.keys == "p" && $0.line.contains("Esc cancels") })
    }

    @Test func everyPrintableKeyGoesIntoTheFieldSoQDoesNotQuit() {
        var field = PasteField.editing("")
        for key in keys("007q?jlr +=") { #expect(field.take(key) == .edited) }
        #expect(field == .editing("007q?jlr +="))
    }

    @Test func backspaceErasesCtrlUClearsEnterSubmitsEscCancels() {
        var field = PasteField.editing("007ab")
        #expect(field.take(.backspace) == .edited)
        #expect(field.take(.backspace) == .edited)
        #expect(field == .editing("007"))
        #expect(field.take(.enter) == .submitted("007"))
        #expect(field.take(.control("u")) == .edited)
        #expect(field == .editing(""))
        #expect(field.take(.escape) == .cancelled)
        #expect(field == .closed)
    }

    @Test func ctrlCStillQuitsAndOtherKeysAreIgnored() {
        var field = PasteField.editing("007")
        #expect(field.take(.other("KEY_F(1)")) == .edited)
        #expect(field.take(.control("x")) == .edited)
        #expect(field == .editing("007"))
        #expect(field.take(.control("c")) == .quit)
    }

    @Test func typingAfterARefusalStartsEditingAgain() {
        var field = PasteField.refused("Bearer 007", why: "it starts with \"Bearer \"")
        #expect(field.take(.backspace) == .edited)
        #expect(field == .editing("Bearer 00"))
    }

    @Test func aLongPasteStopsAtTheLimit() {
        var field = PasteField.editing(String(repeating: "A", count: PastedToken.maximumLength - 1))
        for key in keys("BCD") { _ = field.take(key) }
        #expect(field.text?.utf8.count == PastedToken.maximumLength)
        #expect(field.text?.hasSuffix("AB") == true)
    }
}
