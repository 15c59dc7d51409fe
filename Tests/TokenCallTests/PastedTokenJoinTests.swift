import AccessToken
import Foundation
import TestSupport
import Testing

/// A token for `channel` (uid 0) issued now on the real clock, lasting `lifetime` s.
func consoleToken(channel: String = "pasted", lifetime: UInt32) throws -> String {
    try AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, channel: channel, user: .uid(0),
                              role: .publisher, tokenExpire: lifetime, privilegeExpire: lifetime)
}

@Suite struct PastedTokenJoinTests {
    @Test func aPastedTokenJoinsItsOwnChannelWithNoTokenServer() throws {
        let token = try consoleToken(lifetime: 600)
        let result = try TokenCallProcess.run(["join", "--token", token, "--headless", "--duration", "2", "--remote-users", "0"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("] note text=\"no token server: each next token is pasted by hand\"") })
        #expect(lines.contains { $0.contains("] tokenPasted expiresAt=") })
        #expect(lines.contains { $0.contains("] didJoinChannel channel=pasted ") })
        #expect(lines.contains { $0.hasSuffix("] connectionStateChanged state=connected reason=joinSuccess") })
        #expect(!lines.contains { $0.contains("tokenFetchStarted") })
        #expect(lines.last?.hasSuffix("] sessionEnded failed=false") == true)
        #expect(!(result.stdout + result.stderr).contains(token.dropFirst(7).prefix(24)), "the token is never printed")
    }

    @Test func aShortPastedTokenSaysATokenIsNeededThenEndsFailedWhenItRunsOut() throws {
        let token = try consoleToken(lifetime: 3)
        let result = try TokenCallProcess.run(["join", "--token", token, "--json", "--remote-users", "0"], limit: .seconds(30))
        #expect(result.status == 1, "\(result.stderr)")
        let objects = try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let events = objects.compactMap { $0["event"] as? String }
        let needed = objects.filter { $0["event"] as? String == "tokenNeeded" }.compactMap { $0["secondsLeft"] as? Int }
        #expect(needed.first.map { (1...3).contains($0) } == true, "asked as soon as the short token was taken: \(needed)")
        #expect(needed.last == 0)
        let lastNeeded = try #require(events.lastIndex(of: "tokenNeeded"))
        #expect(events[lastNeeded...].contains("stuck"), "\(events)")
        #expect(objects.last?["event"] as? String == "sessionEnded" && objects.last?["failed"] as? Bool == true)
    }

    @Test func withATokenServerThePastedTokenIsOnlyTheFirst() throws {
        let (server, _, url, _) = try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate, ["--quiet"])
        defer { server.terminate(); server.waitUntilExit() }
        // 33 s: the warning comes 3 s in, and the renewal is fetched from the server.
        let token = try consoleToken(lifetime: 33)
        let result = try TokenCallProcess.run(["join", "--token", token, "--token-url", url.absoluteString, "--headless", "--duration", "5",
                                               "--remote-users", "0"], limit: .seconds(30))
        #expect(result.status == 0, "\(result.stderr)")
        let names = result.stdout.split(separator: "\n").compactMap { $0.split(separator: "s] ", maxSplits: 1).last?.split(separator: " ").first.map(String.init) }
        let pasted = try #require(names.firstIndex(of: "tokenPasted"))
        #expect(!names[..<pasted].contains("tokenFetchStarted"), "the join takes the pasted token")
        #expect(result.stdout.contains("tokenFetchStarted reason=willExpire"))
        #expect(result.stdout.contains("tokenRenewed method=renew"))
        #expect(!names.contains("tokenNeeded"))
    }

    @Test func aDashReadsTheTokenFromStandardInput() throws {
        let token = try consoleToken(lifetime: 600)
        let result = try TokenCallProcess.run(["join", "--token", "-", "--headless", "--duration", "1", "--remote-users", "0"],
                                              stdin: token + "\r\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("connectionStateChanged state=connected"))
        #expect(!result.stderr.contains("paste the token"), "no prompt when standard input is not a terminal")
    }

    @Test(arguments: [
        ("Bearer %T", "--token Bearer ~(", "it starts with \"Bearer \""),
        ("%T extra", "", "a space or a line break inside"),
        ("\"%T\"", "", "in quotes"),
        ("hello", "--token hello is not a token", "not a known version"),
        (TestCredentials.certificate, "", "an App ID or an App Certificate"),
    ])
    func aBadTokenIsAUsageErrorNamingTheMistakeWithoutEchoingIt(template: String, shown: String, words: String) throws {
        let token = try consoleToken(lifetime: 600)
        let result = try TokenCallProcess.run(["join", "--token", template.replacingOccurrences(of: "%T", with: token), "--headless"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("is not a token to join with: "))
        #expect(result.stderr.contains(words), "\(result.stderr)")
        if !shown.isEmpty { #expect(result.stderr.contains(shown.replacingOccurrences(of: "~", with: "…")) || result.stderr.contains(shown)) }
        #expect(!result.stderr.contains(token.dropFirst(7).prefix(24)))
        #expect(!result.stderr.contains(TestCredentials.certificate))
        #expect(result.stdout.isEmpty, "nothing joined")
    }

    @Test func anExpiredOrMissingTokenIsAUsageError() throws {
        let expired = try AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, channel: "pasted",
                                                user: .uid(0), role: .publisher, tokenExpire: 60, privilegeExpire: 60,
                                                issuedAt: UInt32(Date().timeIntervalSince1970) - 3600)
        let old = try TokenCallProcess.run(["join", "--token", expired, "--headless"])
        #expect(old.status == 64)
        #expect(old.stderr.contains("it cannot join: the token expired 3540 s ago") || old.stderr.contains("it cannot join: the token expired 354"))
        let empty = try TokenCallProcess.run(["join", "--token", "-", "--headless"], stdin: "")
        #expect(empty.status == 64)
        #expect(empty.stderr.contains("no token was given"))
        let long = try TokenCallProcess.run(["join", "--token", "-", "--headless"], stdin: String(repeating: "A", count: 10_000))
        #expect(long.status == 64)
        #expect(long.stderr.contains("standard input has no line of at most 4096 bytes"))
    }

    @Test func aTokenForAnotherChannelIsHandedToTheSDKWhichRefusesIt() throws {
        let token = try consoleToken(channel: "lobby", lifetime: 600)
        let result = try TokenCallProcess.run(["join", "--token", token, "--channel", "test", "--headless", "--remote-users", "0"],
                                              limit: .seconds(30))
        #expect(result.status == 1)
        #expect(result.stdout.contains(#"the pasted token will be refused: the token was built for channel \"lobby\", not \"test\""#))
        #expect(result.stdout.contains("connectionStateChanged state=disconnected reason=invalidToken"))
        #expect(result.stdout.contains("stuck reason=\"the network refused the call (invalidToken); paste a token for this App ID"))
        #expect(result.stdout.contains("sessionEnded failed=true"))
    }
}
