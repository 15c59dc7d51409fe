import AccessToken
import Arguments
import Foundation
import PrintableText

/// `tokencall token build` and `tokencall token inspect`.
enum TokenCommands {
    static let appID = Option.value("app-id", "ID", help: "App ID, 32 hex characters", environment: ["APP_ID"])
    static let certificate = Option.value(
        "app-certificate", "CERT", help: "App Certificate, 32 hex characters", environment: ["APP_CERTIFICATE"])

    static let build = Command(
        "build",
        summary: "Build an AccessToken2 (007) for RTC and print it, nothing else.",
        options: [
            .value("app-id", "ID", help: "App ID, 32 hex characters", environment: ["APP_ID"], required: true),
            .value("app-certificate", "CERT", help: "App Certificate, 32 hex characters",
                   environment: ["APP_CERTIFICATE"], required: true),
            .value("channel", "NAME", help: "channel name", required: true),
            .value("uid", "N", help: "integer uid, 0...4294967295; 0 lets the token fit any uid"),
            .value("account", "NAME", help: "string user account, instead of --uid"),
            .value("role", "ROLE", help: "publisher or subscriber", default: "publisher"),
            .value("expire", "SECONDS", help: "token lifetime, 1...86400", default: "3600"),
            .value("privilege-expire", "SECONDS", help: "privilege lifetime, 0...86400; 0 sets no limit of its own",
                   otherwise: "the token lifetime"),
            .value("issue-ts", "UNIX", help: "issue time", otherwise: "now"),
            .value("salt", "N", help: "salt, 1...4294967295", otherwise: "random 1...99999999"),
        ],
        epilogue: "The uid is --uid N or --account NAME, one of them required.",
        run: runBuild
    )

    static let inspect = Command(
        "inspect",
        summary: "Explain a token in words, and check it against what you give.",
        options: [
            certificate,
            appID,
            .value("channel", "NAME", help: "channel the token must be for"),
            .value("uid", "N", help: "integer uid the token must fit"),
            .value("account", "NAME", help: "user account the token must be for, instead of --uid"),
            .flag("json", help: "print one JSON object (fields in Docs/inspect-json.md)"),
        ],
        positionals: [Positional("TOKEN", help: "the token, or - to read it from stdin")],
        epilogue: "Exit status: 0 valid for what was asked, 1 not valid, 64 usage error.",
        run: runInspect
    )

    static let group = Command("token", summary: "Build and inspect Agora tokens.", subcommands: [build, inspect])

    /// The words `--role` takes: Agora's names and numbers.
    static let roles: KeyValuePairs = ["publisher": RTCRole.publisher, "subscriber": .subscriber, "1": .publisher, "2": .subscriber]

    static func runBuild(_ args: Invocation) throws(UsageError) -> Int32 {
        let user = try args.requiredUser()
        let role: RTCRole = try args.choice("role", roles, word: \.key).value
        let expire: UInt32 = try args.integer("expire", in: 1...86_400)
        let privilegeExpire = try args.integer("privilege-expire", in: UInt32(0)...86_400) ?? expire
        let issuedAt = try args.integer("issue-ts", in: UInt32(0)...UInt32.max)
        let salt = try args.integer("salt", in: UInt32(1)...UInt32.max)
        do throws(TokenError) {
            let token = try AccessToken2.buildRTC(
                appID: args.string("app-id"), appCertificate: args.string("app-certificate"),
                channel: args.string("channel"), user: user, role: role, tokenExpire: expire,
                privilegeExpire: privilegeExpire, issuedAt: issuedAt, salt: salt)
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
        let check = TokenCheck(appID: args.string("app-id"), appCertificate: args.string("app-certificate"),
                               channel: args.string("channel"), user: try args.user())
        let report = TokenReport(inspecting: token, check: check, now: Int64(Date().timeIntervalSince1970))
        if args.has("json") {
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
