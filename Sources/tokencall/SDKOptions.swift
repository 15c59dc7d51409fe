import Arguments
import ChannelEngine
import PrintableText

/// `--sdk` and `--sdk-version` of `join` and `replay`: the SDK whose words a call is shown in.
enum SDKOptions {
    /// The options; `replay`'s have no default, the recording's SDK being its default.
    static func options(defaulted: Bool) -> [Option] {
        [
            .value("sdk", "NAME", help: "show the call in this SDK's words and sequence: "
                   + SDKProfile.allCases.map(\.rawValue).joined(separator: ", ") + " (Docs/sdk-profiles.md)",
                   environment: ["TOKENCALL_SDK"], default: defaulted ? SDKProfile.standard.rawValue : nil,
                   otherwise: defaulted ? nil : "the recording's"),
            .value("sdk-version", "VERSION", help: "that SDK's version, such as 4.5: before 4.6 (Flutter 6.6) no renewal result "
                   + "callback", otherwise: "the newest"),
        ]
    }

    /// The voice the options choose: the SDK given, else `recorded`'s (its version too, unless one is given).
    static func voice(_ args: Invocation, else recorded: SDKVoice = .standard) throws(UsageError) -> SDKVoice {
        let profile = try args.choice("sdk", SDKProfile.allCases, word: \.rawValue) as SDKProfile?
        var version = profile == nil ? recorded.version : nil
        if let text = args.string("sdk-version") {
            guard let given = SDKVersion(text) else {
                throw args.error("\(args.described("sdk-version")) must be a version such as 4.5 or 6.6.0, not \"\(text.escapedForPrinting)\"")
            }
            version = given
        }
        return SDKVoice(profile ?? recorded.profile, version: version)
    }
}
