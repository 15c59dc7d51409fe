import AccessToken
import Arguments
import Foundation
import PrintableText

/// `tokencall token build` and `tokencall token inspect`.
enum TokenCommands {
    static let appID: OptionKey<String?> = .text("app-id", "ID", help: "App ID, 32 hex characters", environment: ["APP_ID"])
    static let certificate: OptionKey<String?> = .text(
        "app-certificate", "CERT", help: "App Certificate, 32 hex characters", environment: ["APP_CERTIFICATE"])
    static let requiredAppID: OptionKey<String> = .required("app-id", "ID", help: "App ID, 32 hex characters", environment: ["APP_ID"])
    static let requiredCertificate: OptionKey<String> = .required(
        "app-certificate", "CERT", help: "App Certificate, 32 hex characters", environment: ["APP_CERTIFICATE"])
    static let channel: OptionKey<String> = .required("channel", "NAME", help: "channel name")
    /// Agora's names and numbers for the role.
    static let role: OptionKey<RTCRole> = .choice("role", "ROLE", help: "",
                                                  [("publisher", .publisher), ("subscriber", .subscriber), ("1", .publisher), ("2", .subscriber)],
                                                  default: "publisher")
    static let expire: OptionKey<UInt32> = .integer("expire", "SECONDS", help: "token lifetime", in: 1...86_400, default: 3600)
    static let privilegeExpire: OptionKey<UInt32?> = .integer(
        "privilege-expire", "SECONDS", help: "privilege lifetime; 0 sets no limit of its own", in: 0...86_400, otherwise: "the token lifetime")
    static let issueTS: OptionKey<UInt32?> = .integer("issue-ts", "UNIX", help: "issue time", in: 0...UInt32.max, otherwise: "now")
    static let salt: OptionKey<UInt32?> = .integer("salt", help: "salt", in: 1...UInt32.max, otherwise: "random 1...99999999")
    static let json: OptionKey<Bool> = .flag("json", help: "print one JSON object (fields in Docs/inspect-json.md)")

    static let build = Command(
        "build",
        summary: "Build an AccessToken2 (007) for RTC and print it, nothing else.",
        options: [
            requiredAppID.option, requiredCertificate.option, channel.option,
            .value("uid", "N", help: "integer uid, 0...4294967295; 0 lets the token fit any uid"),
            .value("account", "NAME", help: "string user account, instead of --uid"),
            role.option, expire.option, privilegeExpire.option, issueTS.option, salt.option,
        ],
        epilogue: "The uid is --uid N or --account NAME, one of them required.",
        run: runBuild
    )

    static let inspect = Command(
        "inspect",
        summary: "Explain a token in words, and check it against what you give.",
        options: [
            certificate.option,
            appID.option,
            inspectedChannel.option,
            .value("uid", "N", help: "integer uid the token must fit"),
            .value("account", "NAME", help: "user account the token must be for, instead of --uid"),
            json.option,
        ],
        positionals: [Positional("TOKEN", help: "the token, or - to read it from stdin")],
        epilogue: "Exit status: 0 valid for what was asked, 1 not valid, 64 usage error.",
        run: runInspect
    )

    static let group = Command("token", summary: "Build and inspect Agora tokens.", subcommands: [build, inspect])

    static let inspectedChannel: OptionKey<String?> = .text("channel", "NAME", help: "channel the token must be for")

    static func runBuild(_ args: Invocation) throws(UsageError) -> Int32 {
        let user = try args.requiredUser()
        let expire = args[Self.expire]
        let privilegeExpire = args[Self.privilegeExpire] ?? expire
        do throws(TokenError) {
            let token = try AccessToken2.buildRTC(
                appID: args[requiredAppID], appCertificate: args[requiredCertificate],
                channel: args[channel], user: user, role: args[role], tokenExpire: expire,
                privilegeExpire: privilegeExpire, issuedAt: args[issueTS], salt: args[salt])
            print(token)
            return ExitCode.ok
        } catch {
            throw args.error(error.description)
        }
    }

    static func runInspect(_ args: Invocation) throws(UsageError) -> Int32 {
        var token = args.positionals[0]
        if token == "-" {
            token = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            while token.last?.isNewline == true { token.removeLast() }
        }
        try args.checkCredentials()
        let check = TokenCheck(appID: args[appID], appCertificate: args[certificate],
                               channel: args[inspectedChannel], user: try args.user())
        let report = TokenReport(inspecting: token, check: check, now: Int64(Date().timeIntervalSince1970))
        if args[json] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            // JSONEncoder leaves DEL, C1 controls and bidi overrides as they are; their \u escapes read back the same.
            print(String(decoding: (try? encoder.encode(report)) ?? Data(), as: UTF8.self).escapedForPrinting)
        } else {
            print(report.text)
        }
        return report.isValid ? ExitCode.ok : ExitCode.failure
    }
}
