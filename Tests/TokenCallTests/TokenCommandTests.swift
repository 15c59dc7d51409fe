import Foundation
import Testing

private let appID = "970CA35de60c44645bbae8a215061b33"
private let certificate = "5CFd2fd1755d40ecb72977518be15d3b"
private let channel = "7d72365eb983485397e3e3f9d460bdda"
private let official = "007eJxTYBBbsMMnKq7p9Hf/HcIX5kce9b518kCiQgSr5Zrp4X1Tu6UUGCzNDZwdjU1TUs0Mkk1MzExMk5ISUy0SjQxNDcwMk4yN3b8IMEQwMTAwMoAwBIL4CgzmKeZGxmamqUmWFsYmFqbGluapxqnGaZYpJmYGSSkpiVwMRhYWRsYmhkbmxgDCaiTj"
private let fixtureArguments = ["--app-id", appID, "--app-certificate", certificate, "--channel", channel,
                                "--uid", "2882341273", "--role", "subscriber", "--expire", "600",
                                "--issue-ts", "1111111", "--salt", "1"]

@Suite struct TokenCommandTests {
    @Test func buildPrintsTheOfficialStringAndNothingElse() throws {
        let result = try TokenCallProcess.run(["token", "build"] + fixtureArguments)
        #expect(result.status == 0)
        #expect(result.stdout == official + "\n")
        #expect(result.stderr.isEmpty)
    }

    @Test func buildReadsCredentialsFromTheEnvironment() throws {
        let result = try TokenCallProcess.run(
            ["token", "build", "--channel", channel, "--uid", "2882341273", "--role", "subscriber",
             "--expire", "600", "--issue-ts", "1111111", "--salt", "1"],
            environment: ["APP_ID": appID, "APP_CERTIFICATE": certificate])
        #expect(result.stdout == official + "\n")
    }

    @Test func inspectExplainsAFreshTokenAndExitsZero() throws {
        let token = try TokenCallProcess.run(["token", "build", "--app-id", appID, "--app-certificate", certificate,
                                              "--channel", "demo", "--uid", "0", "--expire", "300"]).stdout
        let result = try TokenCallProcess.run(["token", "inspect", token.trimmingCharacters(in: .newlines),
                                               "--app-certificate", certificate, "--channel", "demo", "--uid", "77"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("007 (AccessToken2)"))
        #expect(result.stdout.contains("any uid (0)"))
        #expect(result.stdout.contains("signature   valid"))
        #expect(result.stdout.contains("s left"))
    }

    @Test func inspectCatchesAWrongCertificateAndExitsOne() throws {
        let result = try TokenCallProcess.run(["token", "inspect", official, "--app-certificate", String(repeating: "a", count: 32)])
        #expect(result.status == 1)
        #expect(result.stdout.contains("signature   INVALID"))
        #expect(result.stdout.contains("expired"))
    }

    @Test func inspectReadsStdinAndPrintsOneJSONObject() throws {
        let result = try TokenCallProcess.run(["token", "inspect", "-", "--json", "--channel", channel, "--uid", "1"],
                                              stdin: official + "\n")
        #expect(result.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["version"] as? String == "007")
        #expect(object["valid"] as? Bool == false)
        #expect(object["channelMatches"] as? Bool == true)
        #expect(object["uidMatches"] as? Bool == false)
        #expect(object["expiresAt"] as? Int == 1_111_711)
        #expect((object["problems"] as? [String])?.isEmpty == false)
    }

    @Test(arguments: [
        (["token", "build", "--bogus"], "unknown option --bogus"),
        (["token", "build", "--app-id", appID, "--app-certificate", certificate, "--channel", "c", "--uid", "-1"],
         "--uid must be an integer from 0 to 4294967295"),
        (["token", "build", "--app-id", appID, "--app-certificate", certificate, "--channel", "c", "--uid", "alice"],
         "for a string user account use --account"),
        (["token", "build", "--app-id", "123", "--app-certificate", certificate, "--channel", "c", "--uid", "1"],
         "the App ID must be 32 hex characters"),
        (["token", "build", "--app-id", appID, "--app-certificate", certificate, "--channel", "c", "--uid", "1",
          "--role", "host"], "--role must be publisher, subscriber, 1 or 2"),
        (["token", "build", "--app-id", appID, "--app-certificate", certificate, "--channel", "c", "--uid", "1",
          "--expire", "0"], "--expire must be an integer from 1 to 86400"),
        (["token", "build", "--app-id", appID, "--app-certificate", certificate, "--channel", "a/b", "--uid", "1"],
         "invalid channel name"),
        (["token", "inspect"], "missing TOKEN"),
        (["token", "inspect", official, "--app-certificate", "short"], "the App Certificate must be 32 hex characters"),
        (["frobnicate"], "unknown command \"frobnicate\""),
    ])
    func usageErrorsPrintOneLineAndUsageOnStderrAndExit64(arguments: [String], message: String) throws {
        let result = try TokenCallProcess.run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first?.contains(message) == true, "\(result.stderr)")
        #expect(lines.count > 2 && lines[1].isEmpty && lines[2].hasPrefix("usage: tokencall"))
    }

    @Test func errorsNeverEchoTheCertificate() throws {
        let secret = "5CFd2fd1755d40ecb72977518be15d3"
        let result = try TokenCallProcess.run(["token", "build", "--app-id", appID, "--app-certificate", secret,
                                               "--channel", "c", "--uid", "1"])
        #expect(result.status == 64)
        #expect(!result.stderr.contains(secret))
    }

    @Test func helpAndVersionExitZero() throws {
        let help = try TokenCallProcess.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("token build"))
        let buildHelp = try TokenCallProcess.run(["token", "build", "--help"])
        #expect(buildHelp.stdout.contains("--privilege-expire SECONDS"))
        let version = try TokenCallProcess.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("tokencall "))
    }
}
