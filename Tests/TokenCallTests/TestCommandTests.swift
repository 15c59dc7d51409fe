import AccessToken
import Foundation
import Synchronization
import TestSupport
import Testing

/// `tokencall test` as a CI job runs it: scenario files against token servers, the exit status, the lines and the
/// JUnit file.
@Suite(.serialized) struct TestCommandTests {
    /// Two renewals of minute-long tokens, and no expiry after: what a sound server passes and a stuck one fails.
    static let twoRenewals = """
        # written for this test: minute-long tokens, renewed twice
        join
        expect connectionStateChanged state=connected within 10s

        expect tokenRenewed within 2m
        expect tokenRenewed within 2m
        expect no requestToken for 3m
        """

    /// A token server in the shape of the guide's (`POST /fetch_rtc_token`) that answers every request with
    /// `token()`: a fresh minute-long token each time, or one built at start.
    private static func server(_ token: @escaping @Sendable () -> String) throws -> HostileServer {
        try HostileServer { connection in
            let body = #"{"token": "\#(token())"}"#
            _ = connection.write(head("200 OK", ["Content-Type: application/json", "Content-Length: \(body.utf8.count)"]) + body)
        }
    }

    private static func minuteToken() -> String {
        (try? AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, channel: "test",
                                    user: .uid(42), role: .publisher, tokenExpire: 60, privilegeExpire: 60)) ?? ""
    }

    private static func run(_ scenario: String, against url: URL?, _ extra: [String] = []) throws -> (TokenCallProcess.Result, junit: String) {
        let folder = try TemporaryFolder()
        let file = try folder.file("two-renewals.scenario", holding: scenario)
        let junit = folder.path + "/junit.xml"
        let server = url.map { ["--token-url", $0.absoluteString, "--app-certificate", TestCredentials.certificate] } ?? []
        let result = try TokenCallProcess.run(["test", file, "--uid", "42", "--seed", "7", "--junit", junit] + server + extra,
                                              limit: .seconds(60))
        return (result, (try? String(contentsOfFile: junit, encoding: .utf8)) ?? "")
    }

    @Test func aScenarioPassesAgainstTheEmbeddedServerAndAServerThatBuildsEachToken() throws {
        let (embedded, _) = try Self.run(Self.twoRenewals, against: nil, ["--token-lifetime", "60"])
        #expect(embedded.status == 0, "\(embedded.stdout)\(embedded.stderr)")
        #expect(embedded.stdout.hasPrefix("PASS two-renewals ("), "\(embedded.stdout)")
        #expect(embedded.stdout.hasSuffix("1 passed, 0 failed\n"), "\(embedded.stdout)")

        let sound = try Self.server(Self.minuteToken)
        defer { sound.stop() }
        let (result, junit) = try Self.run(Self.twoRenewals, against: sound.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasSuffix("1 passed, 0 failed\n"), "\(result.stdout)")
        #expect(junit.contains(#"<testcase classname="tokencall.test" name="two-renewals""#) && !junit.contains("<failure"), "\(junit)")
    }

    /// Its first renewal "succeeds" (the same token renewed with), the token keeps the expiry it came with, and the
    /// call is dropped at its end: the second renewal never comes.
    @Test func aServerThatHandsOutOneTokenBuiltAtStartFailsTheStepOnItsLine() throws {
        let token = Self.minuteToken()
        let stuck = try Self.server { token }
        defer { stuck.stop() }
        let (result, junit) = try Self.run(Self.twoRenewals, against: stuck.url)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasPrefix("FAIL two-renewals: line 6: expect tokenRenewed within 2m: expected tokenRenewed within 120s; none came"), "\(result.stdout)")
        #expect(result.stdout.contains("[  60.000s] renewTokenResult code=tokenExpired"), "dropped at the token's end: \(result.stdout)")
        #expect(result.stdout.hasSuffix("0 passed, 1 failed\n"), "\(result.stdout)")
        #expect(junit.contains(#"<failure message="line 6: expect tokenRenewed within 2m:"#), "\(junit)")
    }

    /// `expect fetches N` counts the requests the server answered, a refusal as well as a token: here a 503, then the
    /// token its retry got.
    @Test func expectFetchesCountsTheServersRefusalsAsWellAsItsTokens() throws {
        let busyFirst = try HostileServer { connection in
            guard connection.index > 0 else {
                _ = connection.write(head("503 Service Unavailable", ["Content-Length: 0"]))
                return
            }
            let body = #"{"token": "\#(Self.minuteToken())"}"#
            _ = connection.write(head("200 OK", ["Content-Type: application/json", "Content-Length: \(body.utf8.count)"]) + body)
        }
        defer { busyFirst.stop() }
        let scenario = "join\nexpect tokenFetchFailed within 10s\nexpect connectionStateChanged state=connected within 1m\nexpect fetches 2\n"
        let (result, _) = try Self.run(scenario, against: busyFirst.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasSuffix("1 passed, 0 failed\n"), "\(result.stdout)")
    }

    @Test func anUnreadableScenarioExits64NamingItsLineAndTheWordMeant() throws {
        let (result, junit) = try Self.run("join\n# fine so far\nexpect tokenRenewd within 2m\n", against: nil)
        #expect(result.status == 64)
        #expect(result.stderr.contains("two-renewals.scenario:3: tokenRenewd? did you mean tokenRenewed?"), "\(result.stderr)")
        #expect(result.stdout.isEmpty && junit.isEmpty, "nothing runs, nothing is written")
    }

    /// A cut network, and an outage of the token server whose retries wait the cache's backoff (drawn from the seed).
    @Test func theSameSeedGivesTheSameEventLogEventByEvent() throws {
        let scenario = "join\nexpect tokenRenewed within 2m\nusers 4\ncut network\nwait 25s\nrestore network\nwait 1m\n"
            + "stop server\nexpect tokenFetchFailed within 1m\nexpect tokenFetchFailed within 1m\nstart server\nexpect tokenRenewed within 1m\n"
        let logs = try (0..<2).map { _ in
            let (result, junit) = try Self.run(scenario, against: nil)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            let start = try #require(junit.range(of: "<system-out>")), end = try #require(junit.range(of: "</system-out>"))
            // The one line that differs: the embedded server's port, which the system picks.
            return junit[start.upperBound..<end.lowerBound].split(separator: "\n").filter { !$0.contains("embedded token server on") }
        }
        #expect(logs[0].count > 40, "\(logs[0])")
        #expect(logs[0] == logs[1])
    }

    @Test func everyBuiltInPassesAgainstTheEmbeddedServer() throws {
        let list = try TokenCallProcess.run(["test", "--list"])
        let names = list.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(names.count == 8 && names.last == "two-in-a-hub", "\(list.stdout)")
        let result = try TokenCallProcess.run(["test"] + names + ["--seed", "11"], limit: .seconds(120))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
                == names.map { "PASS \($0)" } + ["8 passed,"], "\(result.stdout)")
    }

    /// At `--speed N` the call runs over the real clock: a minute and more of call time at 3600× passes in well under a
    /// second of it; `--json` says so per scenario.
    @Test func atASpeedTheCallRunsOverTheRealClock() throws {
        let (result, _) = try Self.run("join\nexpect tokenRenewed within 1m\nwait 30s\nexpect state connected\n", against: nil,
                                       ["--speed", "3600", "--json"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasPrefix(#"{"scenario": "two-renewals", "passed": true, "callTime": "#), "\(result.stdout)")
        #expect(lines.last == #"{"passed": 1, "failed": 0}"#)
    }

    /// `--artifacts DIR`: each scenario's events, which `tokencall replay` plays, and its token timeline as a picture; a
    /// second run into the same folder writes over nothing.
    @Test func artifactsKeepTheEventsForReplayAndTheTimelinePicture() throws {
        let folder = try TemporaryFolder()
        let kept = folder.path + "/artifacts"
        let result = try TokenCallProcess.run(["test", "recovers-after-expiry", "--seed", "5", "--artifacts", kept])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let replay = try TokenCallProcess.run(["replay", "--json", kept + "/recovers-after-expiry.jsonl"])
        #expect(replay.status == 0, "\(replay.stderr)")
        let events = replay.stdout.split(separator: "\n")
        #expect(events.contains(#"{"t": 40.000, "event": "requestToken", "ios": "requestToken"}"#), "\(replay.stdout)")
        #expect(events.last?.hasSuffix(#""event": "sessionEnded", "failed": false, "ios": "sessionEnded"}"#) == true, "\(replay.stdout)")
        let picture = try String(contentsOfFile: kept + "/recovers-after-expiry.svg", encoding: .utf8)
        #expect(picture.hasPrefix("<svg ") && picture.contains("token timeline"), "\(picture.prefix(400))")
        let again = try TokenCallProcess.run(["test", "recovers-after-expiry", "--seed", "5", "--artifacts", kept])
        #expect(again.status == 1 && again.stderr.contains("--artifacts"), "\(again.stderr)")
    }

    /// Issue 35: `--sdk web` runs the call as the Web SDK does (an expired call is over, and auto-renew joins again) and
    /// checks and reports it in the Web's words, a scenario written in them included.
    @Test func aScenarioInTheWebsWordsPassesAsTheWebSDKAndItsFailureSpeaksThem() throws {
        let recovers = """
            join
            expect connection-state-change state=CONNECTED within 10s
            expire
            expect token-privilege-did-expire within 1s
            expect connection-state-change state=DISCONNECTED reason=TOKEN_EXPIRE within 1s
            expect client.join within 10s
            """
        let (web, junit) = try Self.run(recovers, against: nil, ["--sdk", "web"])
        #expect(web.status == 0, "\(web.stdout)\(web.stderr)")
        #expect(junit.contains("] connection-state-change state=DISCONNECTED reason=TOKEN_EXPIRE\n"), "\(junit)")
        #expect(!junit.contains("connectionStateChanged"), "\(junit)")

        let (ios, _) = try Self.run(recovers.replacingOccurrences(of: "=CONNECTED", with: "=connected"), against: nil)
        #expect(ios.status == 1, "iOS's call waits in FAILED for a token: \(ios.stdout)")
        #expect(ios.stdout.contains("FAIL two-renewals: line 5: "), "\(ios.stdout)")

        let (stays, _) = try Self.run("auto-renew off\n" + recovers, against: nil, ["--sdk", "web"])
        #expect(stays.status == 1, "\(stays.stdout)")
        #expect(stays.stdout.contains("FAIL two-renewals: line 7: expect client.join within 10s: expected client.join within 10s; none came"),
                "\(stays.stdout)")
        #expect(stays.stdout.contains("] connection-state-change state=DISCONNECTED reason=TOKEN_EXPIRE\n"), "\(stays.stdout)")
        #expect(!stays.stdout.contains("connectionStateChanged") && !stays.stdout.contains("requestToken"), "\(stays.stdout)")
    }

    /// A callback the chosen SDK does not have fails its step at once, saying so.
    @Test func expectingACallbackTheSDKLacksSaysSo() throws {
        let (result, _) = try Self.run("join\nexpect renewTokenResult within 1m\n", against: nil, ["--sdk", "electron"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("line 2: expect renewTokenResult within 1m: expected renewTokenResult within 60s; the Electron SDK has no "
                                       + "renewTokenResult (Docs/sdk-profiles.md)"), "\(result.stdout)")
    }

    /// Issue 34: a second person on the same hub channel. B expects A to stay while A leaves: the step fails on its
    /// line, and the last events shown are both calls', each after its prefix.
    @Test func bsCheckFailsOnItsLineWhenALeaves() throws {
        let scenario = "join\nB: join\nB: expect didJoinedOfUid uid=42 within 5s\nleave\nB: expect no didOfflineOfUid for 10s\n"
        let (result, junit) = try Self.run(scenario, against: nil)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasPrefix("FAIL two-renewals: line 5: B: expect no didOfflineOfUid for 10s: expected no didOfflineOfUid for 10s; "
                                        + "one came at 0.000s: [   0.000s] didOfflineOfUid uid=42 reason=quit"), "\(result.stdout)")
        #expect(result.stdout.contains("    A: [   0.000s] didLeaveChannel channel=test uid=42"), "\(result.stdout)")
        #expect(junit.contains(#"<failure message="line 5: B: expect no didOfflineOfUid for 10s:"#), "\(junit)")
        #expect(junit.contains("B: [   0.000s] didJoinChannel channel=test uid=43 "), "B joins as the uid after --uid: \(junit)")
    }

    /// The built-in, and two people who join and renew at the same instant: their requests do not race, so A, whose
    /// join came first, is always the hub's first uid.
    @Test func twoPeopleInAHubGiveTheSameEventLogForTheSameSeed() throws {
        let folder = try TemporaryFolder()
        let together = try folder.file("together.scenario", holding: "join\nB: join\nB: expect didJoinedOfUid uid=1000000001 within 1s\n"
                                           + "renew\nB: renew\nwait 30s\n")
        let logs = try (0..<2).map { run in
            let junit = folder.path + "/junit\(run).xml"
            let result = try TokenCallProcess.run(["test", "two-in-a-hub", together, "--seed", "9", "--junit", junit], limit: .seconds(60))
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            let text = try String(contentsOfFile: junit, encoding: .utf8)
            return text.split(separator: "\n").filter { $0.hasPrefix("A: ") || $0.hasPrefix("B: ") || $0.contains("<system-out>") }
                .filter { !$0.contains("embedded token server on") }
        }
        #expect(logs[0].filter { $0.hasPrefix("B: ") }.count > 40, "\(logs[0])")
        #expect(logs[0] == logs[1])
    }

    /// `--hub URL`: both people meet on the user's hub (here `tokencall serve`'s), at the real clock's pace; another speed
    /// is refused in words, and a scenario with B against the user's token server needs a hub that knows its credentials.
    @Test func onTheUsersHubBothMeetAtSpeedOne() throws {
        let (server, _, url, _) = try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate, ["--quiet"])
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let folder = try TemporaryFolder()
        let file = try folder.file("meet.scenario", holding: """
            join
            expect connectionStateChanged state=connected within 10s
            B: join
            B: expect didJoinedOfUid within 5s
            leave
            B: expect didOfflineOfUid reason=quit within 5s
            """)
        let hub = "ws://127.0.0.1:\(url.port ?? 0)/hub"
        let met = try TokenCallProcess.run(["test", file, "--token-url", url.absoluteString, "--hub", hub], limit: .seconds(60))
        #expect(met.status == 0, "\(met.stdout)\(met.stderr)")
        #expect(met.stdout.hasPrefix("PASS meet ("), "\(met.stdout)")
        let fast = try TokenCallProcess.run(["test", file, "--token-url", url.absoluteString, "--hub", hub, "--speed", "10"])
        #expect(fast.status == 64 && fast.stderr.contains("--hub runs at --speed 1 only"), "\(fast.stderr)")
        let noHub = try TokenCallProcess.run(["test", file, "--token-url", url.absoluteString])
        #expect(noHub.status == 64 && noHub.stderr.contains("meet has B: steps, so it runs on a hub that checks your server's tokens"),
                "\(noHub.stderr)")
    }

    /// `--artifacts` keeps the second person's call too: B's recording replays B's view, A dropped after the cut.
    @Test func artifactsKeepBothPeoplesCalls() throws {
        let folder = try TemporaryFolder()
        let kept = folder.path + "/artifacts"
        let result = try TokenCallProcess.run(["test", "two-in-a-hub", "--seed", "5", "--artifacts", kept], limit: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: kept).sorted()
        #expect(files == ["two-in-a-hub.B.jsonl", "two-in-a-hub.B.svg", "two-in-a-hub.jsonl", "two-in-a-hub.svg"])
        let replay = try TokenCallProcess.run(["replay", "--json", kept + "/two-in-a-hub.B.jsonl"])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.contains(#""event": "didOfflineOfUid""#) && replay.stdout.contains(#""reason": "dropped""#), "\(replay.stdout)")
    }
}
