import ChannelEngine
import Timers

/// One entry of the key table: the keys and what each does, and how the footer and the help overlay show them.
struct KeyBinding: Sendable {
    /// Each key read, with what it does.
    let keys: [(key: Key, command: KeyCommand)]
    /// How the footer writes the keys, and its word for them: `+/-`, `users`; nil when it leaves them out.
    let footer: (keys: String, word: String)?
    /// How the help overlay writes the keys, and its line for them; nil when it leaves them out.
    let help: (keys: String, line: String)?
    /// The screens the keys work on: a live call, a replay, or both.
    var modes: Set<Mode> = [.call]
    /// The SDK's methods the keys call, or the callback they bring about, which the help names in the profile's words.
    var words: [SDKWord] = []

    /// Which keys a screen reads: a replay has no call to act on.
    enum Mode: Sendable, Hashable {
        case call, replay
    }

    /// Every key the screen reads, in the help overlay's order.
    static let all: [KeyBinding] = [
        KeyBinding("j", .session(.join), "join", help: "join the channel (a fresh token first)", words: [.joinChannel]),
        KeyBinding("l", .session(.leave), "leave", help: "leave the channel", words: [.leaveChannel]),
        KeyBinding("r", .session(.rejoin), "rejoin", help: "leave, then join again", words: [.leaveChannel, .joinChannel]),
        KeyBinding("n", .session(.renew), "renew", help: "renew now with the current method", words: [.renewToken]),
        KeyBinding("a", .session(.toggleAutoRenew), "auto", help: "auto-renew on/off"),
        KeyBinding("m", .session(.nextRenewMethod), "method", help: "next renew method: renew, update, rejoin"),
        KeyBinding("c", .session(.switchRole), "role", help: "switch role: broadcaster / audience"),
        // `=` is `+` without shift.
        KeyBinding(keys: [(.character("+"), .session(.addUser)), (.character("="), .session(.addUser)), (.character("-"), .session(.removeUser))],
                   footer: ("+/-", "users"), help: ("+ / -", "add / remove a remote user")),
        KeyBinding("i", .session(.toggleNetwork), "net", help: "cut / restore the network"),
        KeyBinding("s", .session(.toggleServer), "server", help: "stop / start the embedded token server"),
        KeyBinding("e", .session(.expire), "expire", help: "expire the token now", words: [.requestToken]),
        KeyBinding("p", .paste, "paste", help: "paste the next token (Enter applies it, Esc cancels)"),
        KeyBinding("x", .session(.cycleMistake), "mistake", help: "next mistake on purpose of the embedded server (--misconfigure)"),
        // `,` and `.` are `<` and `>` without shift.
        KeyBinding(keys: [(.character("<"), .clock(.slower)), (.character(","), .clock(.slower)), (.character(">"), .clock(.faster)),
                          (.character("."), .clock(.faster))],
                   footer: ("</>", "speed"),
                   help: ("< / >", "halve / double the speed of time (\(ClockPhase.speeds.lowerBound)x to \(ClockPhase.speeds.upperBound)x)"),
                   modes: [.call, .replay]),
        KeyBinding(keys: [(.character(" "), .clock(.pause))], footer: ("space", "pause"), help: ("space", "pause / resume time"),
                   modes: [.call, .replay]),
        KeyBinding("?", .help, "help", help: "this help", modes: [.call, .replay]),
        KeyBinding(keys: [(.character("q"), .quit), (.control("c"), .quit)], footer: ("q", "quit"), help: ("q, Ctrl-C", "quit (a call leaves the channel first)"),
                   modes: [.call, .replay]),
        KeyBinding("t", .timeline, "timeline", help: "token timeline on/off: each token's life along the call's time",
                   modes: [.call, .replay]),
    ]

    /// The keys a screen in `mode` reads, in the help overlay's order.
    static func table(_ mode: Mode) -> [KeyBinding] { all.filter { $0.modes.contains(mode) } }

    /// Whether the keys change the screen alone (help, quit) and nothing of the call.
    var isScreenOnly: Bool {
        keys.allSatisfy { key in
            switch key.command {
            case .session, .paste, .clock: false
            case .help, .timeline, .quit, .unknown: true
            }
        }
    }
}

extension KeyBinding {
    /// One key, shown as itself.
    init(_ key: Unicode.Scalar, _ command: KeyCommand, _ word: String, help line: String, modes: Set<Mode> = [.call],
         words: [SDKWord] = []) {
        self.init(keys: [(.character(Character(key)), command)], footer: (String(key), word), help: (String(key), line), modes: modes,
                  words: words)
    }

    /// The help overlay's line in `voice`'s words: `renew now with the current method: client.renewToken`.
    func helpLine(in voice: SDKVoice) -> (keys: String, line: String)? {
        guard let help else { return nil }
        let names = words.compactMap(voice.name(of:))
        return names.isEmpty ? help : (help.keys, help.line + ": " + names.joined(separator: ", "))
    }
}
