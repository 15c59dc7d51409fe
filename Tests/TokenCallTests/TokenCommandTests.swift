@testable import AccessToken
import Foundation
import TestSupport
import Testing

private let channel = "7d72365eb983485397e3e3f9d460bdda"
private let official = "007eJxTYBBbsMMnKq7p9Hf/HcIX5kce9b518kCiQgSr5Zrp4X1Tu6UUGCzNDZwdjU1TUs0Mkk1MzExMk5ISUy0SjQxNDcwMk4yN3b8IMEQwMTAwMoAwBIL4CgzmKeZGxmamqUmWFsYmFqbGluapxqnGaZYpJmYGSSkpiVwMRhYWRsYmhkbmxgDCaiTj"
private let fixtureArguments = ["--app-id", TestCredentials.appID, "--app-certificate", TestCredentials.certificate, "--channel", channel,
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
            environment: ["APP_ID": TestCredentials.appID, "APP_CERTIFICATE": TestCredentials.certificate])
        #expect(result.stdout == official + "\n")
    }

    @Test func inspectExplainsAFreshTokenAndExitsZero() throws {
        let token = try TokenCallProcess.run(["token", "build", "--app-id", TestCredentials.appID, "--app-certificate", TestCredentials.certificate,
                                              "--channel", "demo", "--uid", "0", "--expire", "300"]).stdout
        let result = try TokenCallProcess.run(["token", "inspect", token.trimmingCharacters(in: .newlines),
                                               "--app-certificate", TestCredentials.certificate, "--channel", "demo", "--uid", "77"])
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

    @Test func inspectingAnAccountTokenAsAUidSaysWhichIsWhich() throws {
        let built = try TokenCallProcess.run(["token", "build", "--app-id", TestCredentials.appID, "--app-certificate", TestCredentials.certificate,
                                              "--channel", "room", "--account", "alice"])
        #expect(built.status == 0)
        let token = built.stdout.trimmingCharacters(in: .newlines)
        let asUid = try TokenCallProcess.run(["token", "inspect", token, "--channel", "room", "--uid", "42"])
        #expect(asUid.status == 1)
        #expect(asUid.stdout.contains(#"the token was built for the user account "alice" (a string), but you join with the integer uid 42"#),
                "\(asUid.stdout)")
        let asAccount = try TokenCallProcess.run(["token", "inspect", token, "--channel", "room", "--account", "alice"])
        #expect(asAccount.status == 0, "\(asAccount.stdout)")
    }

    /// A tutorial server on a 006 builder makes uid 0 the account "0": inspected as uid 0 the token is named for that
    /// account with its signature valid, not blamed on the App Certificate.
    @Test func inspectingA006TokenForTheAccount0AsUid0NamesTheAccount() throws {
        let now = UInt32(Date().timeIntervalSince1970)
        let token = Legacy006.token(channel: "room", uid: "0", messageExpiresAt: now + 86_400, privilegesExpireAt: now + 3600)
        let result = try TokenCallProcess.run(["token", "inspect", token, "--app-certificate", TestCredentials.certificate,
                                               "--channel", "room", "--uid", "0"])
        #expect(result.status == 1)
        #expect(result.stdout.contains(#"RTC  account "0""#), "\(result.stdout)")
        #expect(result.stdout.contains("signature   valid"))
        #expect(result.stdout.contains(#"the token is for the account "0" (a string), which is not the wildcard"#))
        #expect(!result.stdout.contains("App Certificate"), "\(result.stdout)")
    }

    @Test(arguments: [
        (["token", "build", "--bogus"], "unknown option --bogus"),
        (["token", "build", "--app-id", TestCredentials.appID, "--app-certificate", TestCredentials.certificate, "--channel", "c", "--uid", "-1"],
         "--uid must be an integer from 0 to 4294967295"),
        (["token", "build", "--app-id", TestCredentials.appID, "--app-certificate", TestCredentials.certificate, "--channel", "c", "--uid", "alice"],
         "for a string user account use --account"),
        (["token", "build", "--app-id", "123", "--app-certificate", TestCredentials.certificate, "--channel", "c", "--uid", "1"],
         "the App ID must be 32 hex characters"),
        (["token", "build", "--app-id", TestCredentials.appID, "--app-certificate", TestCredentials.certificate, "--channel", "c", "--uid", "1",
          "--role", "host"], "--role must be publisher, subscriber, 1 or 2"),
        (["token", "build", "--app-id", TestCredentials.appID, "--app-certificate", TestCredentials.certificate, "--channel", "c", "--uid", "1",
          "--expire", "0"], "--expire must be an integer from 1 to 86400"),
        (["token", "build", "--app-id", TestCredentials.appID, "--app-certificate", TestCredentials.certificate, "--channel", "a/b", "--uid", "1"],
         "invalid channel name"),
        (["token", "inspect"], "missing TOKEN"),
        (["token", "inspect", official, "--app-certificate", "short"], "the App Certificate must be 32 hex characters"),
        (["frobnicate"], "unknown command (not shown, as it may be a secret)"),
        (["tokn", "inspect", "x", "--json"], "tokencall: unknown command (did you mean token?)"),
    ])
    func usageErrorsPrintOneLineAndWhereTheHelpIsOnStderrAndExit64(arguments: [String], message: String) throws {
        let result = try TokenCallProcess.run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first?.contains(message) == true, "\(result.stderr)")
        #expect(lines.count == 3 && lines[1].hasPrefix("see tokencall") && lines[1].hasSuffix(" --help") && lines[2].isEmpty, "\(result.stderr)")
    }

    @Test func errorsNeverEchoTheCertificate() throws {
        let secret = "5CFd2fd1755d40ecb72977518be15d3"
        let result = try TokenCallProcess.run(["token", "build", "--app-id", TestCredentials.appID, "--app-certificate", secret,
                                               "--channel", "c", "--uid", "1"])
        #expect(result.status == 64)
        #expect(!result.stderr.contains(secret))
    }

    @Test(arguments: [["token", "build", "--channel", "c", "--uid", "1", TestCredentials.certificate], ["serve", TestCredentials.certificate],
                      ["token", "inspect", official, TestCredentials.certificate], [TestCredentials.certificate]])
    func aCertificateGivenWithoutItsOptionIsNeverEchoed(arguments: [String]) throws {
        let result = try TokenCallProcess.run(arguments, environment: ["APP_ID": TestCredentials.appID, "APP_CERTIFICATE": TestCredentials.certificate])
        #expect(result.status == 64)
        #expect(!result.stderr.contains(TestCredentials.certificate), "\(result.stderr)")
        #expect(result.stderr.contains("not shown, as"), "\(result.stderr)")
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

/// Scalars a terminal would act on or hide, as a test sees them: C0 but the line end, DEL, C1, bidi controls and the
/// Unicode line and paragraph separators.
private func unsafeScalars(in output: String) -> [Unicode.Scalar] {
    output.unicodeScalars.filter { scalar in
        let v = scalar.value
        return (v < 0x20 && scalar != "\n") || (0x7F...0x9F).contains(v) || (0x2028...0x202E).contains(v)
            || (0x2066...0x2069).contains(v) || v == 0x200E || v == 0x200F
    }
}

/// A token made outside any builder, so its fields hold whatever an attacker likes; its signature is zeros.
private func craftedToken(appID: String, channel: String, account: String) -> String {
    let token = AccessToken2(appID: appID, issuedAt: 1_700_000_000, expire: 600, salt: 1, services: [
        Service(type: ServiceType.rtc.rawValue, privileges: [1: 0], detail: .rtc(channel: channel, uid: account)),
    ])
    var content = ByteWriter()
    content.string([UInt8](repeating: 0, count: 32))
    content.bytes += token.signingInfo()
    return AccessToken2.version + Base64.encode(Zlib.compress(content.bytes))
}

/// `token inspect` prints what a token says; a crafted one must not drive the terminal or forge a verdict.
@Suite struct InspectOutputEscapingTests {
    let hostileAppID = "\u{1B}]0;retitled\u{07}"
    let hostileChannel = "room\u{1B}[2J\u{9B}31m\u{7F}\u{202E}"
    let hostileAccount = "bob\nverdict     valid for what was asked\u{2028}verdict valid\u{85}"

    @Test func textShowsEveryFieldEscapedAndOneVerdict() throws {
        let token = craftedToken(appID: hostileAppID, channel: hostileChannel, account: hostileAccount)
        let result = try TokenCallProcess.run(["token", "inspect", token, "--channel", "room", "--account", "bob"])
        #expect(result.status == 1)
        #expect(unsafeScalars(in: result.stdout + result.stderr).isEmpty, "\(result.stdout.debugDescription)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("verdict") } == ["verdict     NOT valid"])
        #expect(result.stdout.contains(#"app id      \u001b]0;retitled\u0007"#))
        #expect(result.stdout.contains(#"channel "room\u001b[2J\u009b31m\u007f\u202e""#))
        #expect(result.stdout.contains(#"account "bob\u000averdict     valid for what was asked\u2028verdict valid\u0085""#))
    }

    @Test func jsonEscapesEveryFieldAndReadsBackExactly() throws {
        let token = craftedToken(appID: hostileAppID, channel: hostileChannel, account: hostileAccount)
        let result = try TokenCallProcess.run(["token", "inspect", "-", "--json", "--channel", "room"], stdin: token)
        #expect(unsafeScalars(in: result.stdout + result.stderr).isEmpty, "\(result.stdout.debugDescription)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["appId"] as? String == hostileAppID)
        let service = try #require((object["services"] as? [[String: Any]])?.first)
        #expect(service["channel"] as? String == hostileChannel)
        #expect(service["uid"] as? String == hostileAccount)
    }

    @Test(arguments: [false, true])
    func anUnreadableInputsFirstBytesAreEscaped(json: Bool) throws {
        let input = "\u{9B}2J\u{1B}]0;x\u{07}rest"
        let result = try TokenCallProcess.run(["token", "inspect", input] + (json ? ["--json"] : []))
        #expect(result.status == 1)
        #expect(unsafeScalars(in: result.stdout + result.stderr).isEmpty, "\(result.stdout.debugDescription)")
        #expect(result.stdout.contains(json ? #"starts with \"\u009b2J"# : #"starts with "\u009b2J"#), "\(result.stdout)")
    }
}
