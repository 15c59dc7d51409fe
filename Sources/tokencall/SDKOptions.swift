import Arguments
import ChannelEngine

/// `--sdk` and `--sdk-version` of `join`, `test` and `replay`: the SDK whose words and sequence a call is shown in.
enum SDKOptions {
    private static let profiles = SDKProfile.allCases.map { ($0.rawValue, $0) }
    private static let help = "show the call in this SDK's words and sequence (Docs/sdk-profiles.md)"

    /// `join`'s: iOS unless given.
    static let sdk: OptionKey<SDKProfile> = .choice("sdk", "NAME", help: help, profiles, environment: ["TOKENCALL_SDK"],
                                                    default: SDKProfile.standard.rawValue)
    /// `replay`'s: the recording's unless given.
    static let recordedSDK: OptionKey<SDKProfile?> = .choice("sdk", "NAME", help: help, profiles, environment: ["TOKENCALL_SDK"],
                                                             otherwise: "the recording's")
    static let version: OptionKey<SDKVersion?> = .parsed(
        "sdk-version", "VERSION", help: "that SDK's version, such as 4.5: before 4.6 (Flutter 6.6) no renewal result callback",
        must: "a version such as 4.5 or 6.6.0", otherwise: "the newest") { SDKVersion($0) }

    /// The voice `join`'s and `test`'s options choose.
    static func voice(_ args: Invocation) -> SDKVoice { SDKVoice(args[sdk], version: args[version]) }

    /// The voice `replay`'s options choose: the SDK given, else `recorded`'s (its version too, unless one is given).
    static func voice(_ args: Invocation, else recorded: SDKVoice) -> SDKVoice {
        let profile = args[recordedSDK]
        return SDKVoice(profile ?? recorded.profile, version: args[version] ?? (profile == nil ? recorded.version : nil))
    }
}
