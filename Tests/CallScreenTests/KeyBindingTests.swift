import CallSession
import Testing
@testable import CallScreen

@Suite struct KeyBindingTests {
    @Test(arguments: [
        ("j", .session(.join)), ("l", .session(.leave)), ("r", .session(.rejoin)), ("n", .session(.renew)),
        ("a", .session(.toggleAutoRenew)), ("m", .session(.nextRenewMethod)), ("c", .session(.switchRole)),
        ("+", .session(.addUser)), ("=", .session(.addUser)), ("-", .session(.removeUser)), ("i", .session(.toggleNetwork)),
        ("s", .session(.toggleServer)), ("e", .session(.expire)), ("x", .session(.cycleMistake)), ("t", .timeline), ("?", .help), ("q", .quit),
        ("<", .clock(.slower)), (",", .clock(.slower)), (">", .clock(.faster)), (".", .clock(.faster)), (" ", .clock(.pause)),
    ] as [(Character, KeyCommand)])
    func eachKeyHasItsCommand(character: Character, command: KeyCommand) {
        #expect(KeyCommand(key: .character(character)) == command)
    }

    @Test func ctrlCQuits() {
        #expect(KeyCommand(key: .control("c")) == .quit)
        #expect(KeyCommand(key: .control("c"), in: .replay) == .quit)
    }

    @Test func anUnknownKeyIsNamedForTheLog() {
        #expect(KeyCommand(key: .character("z")) == .unknown("'z'"))
        #expect(KeyCommand(key: .character("~")) == .unknown("'~'"))
        #expect(KeyCommand(key: .backspace) == .unknown("Backspace"))
        #expect(KeyCommand(key: .control("x")) == .unknown("Ctrl-X"))
        #expect(KeyCommand(key: .other("KEY_F(1)")) == .unknown("KEY_F(1)"))
    }

    @Test func noKeyIsBoundTwice() {
        let keys = KeyBinding.all.flatMap { $0.keys.map(\.key) }
        #expect(Set(keys).count == keys.count)
    }

    @Test func theFooterIsMadeFromTheTableWithHelpAndQuitFirst() throws {
        let bar = ScreenRenderer.keyBar(width: 199)
        #expect(bar.hasPrefix(" ? help  q quit  t timeline  j join"))
        for binding in KeyBinding.table(.call) {
            guard let footer = binding.footer else { continue }
            #expect(bar.contains("\(footer.keys) \(footer.word)"))
        }
        let grid = ScreenRenderer.chrome(ScreenState.sample, width: 200, height: 40, options: RenderOptions(colors: 0, unicode: false))
        #expect(grid.lines.last == bar)
    }

    @Test(arguments: [30, 80, 117, 120])
    func aNarrowFooterShowsWholeEntriesOnly(width: Int) {
        let bar = ScreenRenderer.keyBar(width: width - 1)
        #expect(bar.count <= width - 1)
        #expect(bar.hasPrefix(" ? help"))
        let entries = bar.dropFirst().components(separatedBy: "  ")
        #expect(entries.allSatisfy { ScreenRenderer.keyBarEntries().contains($0) })
    }

    @Test func whileTheHelpIsUpAKeyOnlyClosesItButQuitAndResizePass() {
        var state = ScreenState.sample
        #expect(state.type("?") == [])
        #expect(state.showHelp)
        #expect(state.type("j") == [], "the key only closes the help")
        #expect(!state.showHelp)
        #expect(state.type("j") == [.session(.join)])
        state.type("?")
        #expect(state.type("?") == [], "? closes the help too")
        #expect(!state.showHelp)
        state.type("?")
        #expect(state.type("z") == [])
        state.type("?")
        #expect(state.update(.resize(width: 100, height: 30)) == [])
        #expect(state.showHelp)
        #expect(state.size == ScreenSize(width: 100, height: 30))
        #expect(state.type("q") == [.quit])
    }
}

extension ScreenState {
    static let sample = ScreenState(call: CallSettings(channel: "test", uid: 1, role: .broadcaster, tokenServer: "embedded", renewMethod: .renew,
                                    autoRenew: true))
}
