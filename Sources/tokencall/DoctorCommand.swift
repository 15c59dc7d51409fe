import AccessToken
import Arguments
import Foundation
import PrintableText
import TokenClient
import TokenDoctor
import TokenServer

/// `tokencall doctor URL`: checks a token server for the mistakes users meet most.
enum DoctorCommand {
    /// Options that mean here what they mean for `join` and `token build`, taken from there.
    static let shared = [CallOptions.channel.option] + ["uid", "account"].compactMap(TokenCommands.build.option(named:))
        + [TokenCommands.role.option, TokenSourceOptions.tokenRequest.option, TokenSourceOptions.tokenField.option,
           TokenSourceOptions.expiresField.option, TokenSourceOptions.authBearer.option, TrustOptions.caFile.option,
           TokenSourceOptions.requestTimeout.option]

    static let latencyLimit: OptionKey<Int> = .integer("latency-limit", "MS", help: "a p99 above it fails the latency check",
                                                       in: 1...120_000, default: Doctor.slowestP99Milliseconds)
    static let origin: OptionKey<String?> = .text(
        "origin", "ORIGIN", help: "your browser app's origin, such as https://app.example: sent as Origin on each request, and CORS is checked")
    static let tokenLifetime: OptionKey<UInt32> = .integer("token-lifetime", "SECONDS", help: "the lifetime {expire} in --token-request asks for",
                                                           in: TokenServerConfig.lifetimeRange, default: 3600)
    static let json: OptionKey<Bool> = .flag("json", help: "print one JSON object (fields in Docs/doctor.md)")

    static let command = Command(
        "doctor", summary: "Check a token server for the mistakes that break calls, one line per check.",
        options: shared + [
            TokenCommands.appID.option,
            TokenCommands.certificate.option,
            latencyLimit.option,
            origin.option,
            tokenLifetime.option,
            json.option,
            JUnitReport.junit.option,
        ],
        positionals: [Positional("URL", help: "the token server, or its token endpoint")],
        epilogue: "Checks are listed in Docs/doctor.md. Exit status: 0 every check passed, 1 one failed, 64 usage error.",
        run: run)

    @MainActor
    static func run(_ args: Invocation) async throws(UsageError) -> Int32 {
        let doctor = Doctor(try setup(args), transport: LoopHTTPTransport.tokencall(trust: try args.trust()))
        do throws(TokenClientError) { _ = try doctor.tokenRequest() } catch {
            // The shape cannot carry what was asked (an account in fetch_rtc_token's integer uid).
            if case .unsendable(let why) = error { throw args.error(why) }
            throw args.error(error.description)
        }
        guard case .success(let junit) = JUnitReport.file(args, for: "doctor") else { return ExitCode.failure }
        let report = DoctorReport(url: doctor.setup.url, checks: await doctor.run())
        print(args[json] ? report.json : report.text)
        if let junit, !Self.junit(report).write(to: junit, for: "doctor") { return ExitCode.failure }
        return report.ok ? ExitCode.ok : ExitCode.failure
    }

    /// The checks as JUnit XML: one testsuite for the server, a testcase per check, a failed one's words and what to do
    /// as its failure, one skipped because of another as skipped, a warning as its system-out.
    static func junit(_ report: DoctorReport) -> JUnitReport {
        JUnitReport(name: "tokencall doctor", suites: [JUnitReport.Suite(name: "tokencall doctor \(report.url)", cases: report.checks.map { check in
            var test = JUnitReport.Case(classname: "tokencall.doctor", name: check.name.rawValue)
            if let cause = check.skippedBecause {
                test.skipped = "not checked, because \(cause.rawValue) failed"
            } else if !check.ok {
                test.failure = (check.detail.escapedForPrinting, check.detail.escapedForPrinting)
            } else if check.isWarning {
                test.output = "warning: " + check.detail.escapedForPrinting
            }
            return test
        })])
    }

    /// What the options ask the doctor to check.
    static func setup(_ args: Invocation) throws(UsageError) -> Doctor.Setup {
        let url = try args.tokenServerURL(args.positionals[0], as: "URL")
        try args.checkCredentials()
        try args.checkBearer()
        let request = TokenRequest(channel: try args.channel(), user: try args.user() ?? .uid(0),
                                   role: args[TokenCommands.role], appID: args[TokenCommands.appID])
        let shape = try args.tokenRequestShape()
        try args.checkLifetime(sentBy: shape)
        return Doctor.Setup(url: url, shape: shape, request: request, appCertificate: args[TokenCommands.certificate],
                            bearer: args[TokenSourceOptions.authBearer], origin: try args.origin(),
                            requestedLifetime: args[tokenLifetime], timeout: try args.requestTimeout(),
                            slowestP99: .milliseconds(args[latencyLimit]))
    }
}
