import ChannelEngine

/// `Docs/sdk-profiles.md`, made from the one table of names (`SDKWords`) and the way events are spoken in a voice
/// (`SessionEvent.spoken(in:)`), so that the page says what tokencall prints. `SDKProfilesPageTests` keeps the file equal.
public enum SDKProfilesPage {
    /// A step of a sequence: a callback the app hears, or a method it calls.
    enum Step {
        case hears(AgoraRtcEvent)
        case calls(SDKWord)
    }

    /// The sequences the page shows, each in the engine's events; `webEnding` replaces the end where the Web differs.
    static let sequences: [(title: String, steps: [Step], webEnding: [Step]?)] = [
        ("A will-expire: 30 s before the token's privileges end", [.hears(.tokenPrivilegeWillExpire(token: ""))], nil),
        ("A renewal: a fresh token from the app's server, then", [.calls(.renewToken), .hears(.renewTokenResult(token: "", code: .success))], nil),
        ("A refused renewal: a token for another channel", [.calls(.renewToken), .hears(.renewTokenResult(token: "", code: .invalidChannelName))], nil),
        ("An expiry: no renewal in time",
         [.hears(.requestToken), .hears(.connectionStateChanged(.failed, reason: .reasonTokenExpired)), .calls(.renewToken),
          .hears(.connectionStateChanged(.connecting, reason: .reasonRenewToken)), .hears(.connectionStateChanged(.connected, reason: .reasonRejoinSuccess)),
          .hears(.didRejoinChannel(channel: "test", uid: 7, elapsed: 250))],
         [.hears(.requestToken), .hears(.connectionStateChanged(.failed, reason: .reasonTokenExpired)), .calls(.leaveChannel),
          .calls(.joinChannel), .hears(.connectionStateChanged(.connecting, reason: .reasonConnecting)),
          .hears(.connectionStateChanged(.connected, reason: .reasonJoinSuccess)), .hears(.didJoinChannel(channel: "test", uid: 7, elapsed: 250))]),
    ]

    /// The page's text.
    public static var markdown: String {
        let profiles = SDKProfile.allCases
        var page = """
        # Each SDK's words

        <!-- Made from the table in Sources/AgoraVocabulary/SDKProfile.swift by SDKProfilesPage; do not edit: \
        RECORD_DOCS=1 swift test --filter SDKProfilesPageTests writes it anew. -->

        The token flow is the same idea in every Agora SDK, but not the same words, and on the Web not the same sequence.
        `tokencall join --sdk NAME` (or `TOKENCALL_SDK=NAME`; default `\(SDKProfile.standard.rawValue)`) shows the call in one SDK's \
        words: the call screen's header, status, log and key help (`?`), the headless lines and `--json`, where `event` is the \
        SDK's name and `ios` the iOS name whatever the SDK, so that a tool reads one key. `--sdk-version` says which version of \
        it (default: \(profiles.map { "\($0.title) \($0.latest)" }.joined(separator: ", "))). A recording names its SDK in its header; `tokencall replay --sdk NAME` shows it in another. \
        `tokencall test --sdk NAME` runs each scenario as that SDK's call, checks its events as that SDK fires them (a step \
        may name them, and states and reasons, in its words or iOS's) and reports in its words (`Docs/ci.md`). \
        The names: \(profiles.map { "`\($0.rawValue)`" }.joined(separator: ", ")). The callbacks below are the token \
        flow's and the call's; the others (statistics, video, the simulator's notices) and tokencall's own events \
        (`tokenFetched`, `note`, ...) keep their names in every SDK.

        ## Names


        """
        page += row(["iOS name"] + profiles.map(\.title)) + row(Array(repeating: "---", count: profiles.count + 1))
        for word in SDKWord.allCases {
            page += row(["`\(word.rawValue)`" + (word.isMethod ? " (called)" : "")]
                        + profiles.map { SDKVoice($0).name(of: word).map { "`\($0)`" } ?? "—" })
        }
        let renamed = SDKWord.allCases.compactMap { word in SDKWords.flutterBefore6[word].map { "`\($0)`" } }
        page += "\nFlutter before \(SDKWords.flutterRenamedIn) (`--sdk flutter --sdk-version 5.0`) says \(renamed.joined(separator: ", ")) "
            + "instead, without a connection argument.\n"
        page += "\n## Connection states and reasons\n\n"
        page += row(["iOS name"] + profiles.map(\.title)) + row(Array(repeating: "---", count: profiles.count + 1))
        for state in AgoraConnectionState.allCases {
            page += row(["state `\(state.name)`"] + profiles.map { "`\($0.spelling(of: state))`" })
        }
        let reasons: [AgoraConnectionChangedReason] = [.reasonJoinSuccess, .reasonLeaveChannel, .reasonInvalidToken, .reasonTokenExpired,
                                                       .reasonRenewToken, .reasonInterrupted, .reasonBannedByServer]
        for reason in reasons {
            page += row(["reason `\(reason.name)`"] + profiles.map { "`\($0.spelling(of: reason))`" })
        }
        page += """

        The Web has no FAILED state: what the engine calls failed, it calls `DISCONNECTED`; and it gives a reason only \
        with `DISCONNECTED`.

        ## Sequences

        Each column is what an app of that SDK hears (a callback) or calls (→). Where an SDK has no callback for a \
        renewal's result, a refused renewal is heard as the error of its day (109 token expired, 110 invalid token) and a \
        taken one not at all: \(profiles.map { profile in
            "\(profile.title) " + (profile.renewResultSince.map { "from \($0)" } ?? "never")
        }.joined(separator: ", ")); `--sdk-version` below that drops the callback the same way. The Web has no \
        `requestToken`: its call ends at expiry, and its app leaves and joins again with a fresh token (tokencall's `r` path).

        """
        for sequence in sequences {
            page += "\n### \(sequence.title)\n\n"
            let columns = profiles.map { profile in
                let steps = profile.requestsToken ? sequence.steps : sequence.webEnding ?? sequence.steps
                return steps.compactMap { spoken($0, in: SDKVoice(profile)) }
            }
            page += row(profiles.map(\.title)) + row(Array(repeating: "---", count: profiles.count))
            for index in 0..<(columns.map(\.count).max() ?? 0) {
                page += row(columns.map { index < $0.count ? $0[index] : "" })
            }
        }
        return page
    }

    private static func spoken(_ step: Step, in voice: SDKVoice) -> String? {
        switch step {
        case .calls(let word): return voice.name(of: word).map { "→ `\($0)`" }
        case .hears(let event):
            guard let spoken = SessionEvent(time: .zero, kind: .engine(event)).spoken(in: voice) else { return nil }
            let values = spoken.fields.compactMap { key, value -> String? in
                switch value {
                case .text(let text): key == "channel" ? nil : text
                case .number(let number): key == "code" ? String(number) : nil
                default: nil
                }
            }
            return "`\(spoken.name)`" + (values.isEmpty ? "" : " " + values.joined(separator: " "))
        }
    }

    private static func row(_ cells: [String]) -> String { "| " + cells.joined(separator: " | ") + " |\n" }
}
