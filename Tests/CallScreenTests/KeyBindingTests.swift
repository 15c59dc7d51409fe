import CNcurses
import Testing
@testable import CallScreen

/// A key as the terminal reads it.
private func key(_ scalar: Unicode.Scalar) -> Int32 { Int32(UInt8(ascii: scalar)) }

@Suite struct KeyBindingTests {
    @Test(arguments: [
        ("j", .session(.join)), ("l", .session(.leave)), ("r", .session(.rejoin)), ("n", .session(.renew)),
        ("a", .session(.toggleAutoRenew)), ("m", .session(.nextRenewMethod)), ("c", .session(.switchRole)),
        ("+", .session(.addUser)), ("=", .session(.addUser)), ("-", .session(.removeUser)), ("i", .session(.toggleNetwork)),
        ("s", .session(.toggleServer)), ("e", .session(.expire)), ("x", .session(.cycleMistake)), ("t", .timeline), ("?", .help), ("q", .quit), ("\u{03}", .quit),
        ("<", .clock(.slower)), (",", .clock(.slower)), (">", .clock(.faster)), (".", .clock(.faster)), (" ", .clock(.pause)),
    ] as [(Unicode.Scalar, KeyCommand)])
    func eachKeyHasItsCommand(scalar: Unicode.Scalar, command: KeyCommand) {
        #expect(KeyCommand(key: key(scalar)) == command)
    }

    @Test func aResizeIsNotAKeyOfTheCall() {
        #expect(KeyCommand(key: KEY_RESIZE) == .resize)
    }

    @Test func anUnknownKeyIsNamedForTheLog() {
        #expect(KeyCommand(key: key("z")) == .unknown("'z'"))
        #expect(KeyCommand(key: key("~")) == .unknown("'~'"))
        #expect(KeyCommand(key: key("\u{7F}")) == .unknown("code 127"))
        #expect(KeyCommand(key: KEY_F0 + 1) == .unknown("code \(KEY_F0 + 1)"))
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
        #expect(state.press(.help) == .help)
        #expect(state.showHelp)
        #expect(state.press(.session(.join)) == nil)
        #expect(!state.showHelp)
        #expect(state.press(.session(.join)) == .session(.join))
        _ = state.press(.help)
        #expect(state.press(.help) == nil, "? closes the help too")
        _ = state.press(.help)
        #expect(state.press(.unknown("'x'")) == nil)
        _ = state.press(.help)
        #expect(state.press(.resize) == .resize)
        #expect(state.showHelp)
        #expect(state.press(.quit) == .quit)
    }
}

extension ScreenState {
    static let sample = ScreenState(channel: "test", uid: 1, role: .broadcaster, tokenServer: "embedded", renewMethod: .renew,
                                    autoRenew: true)
}
