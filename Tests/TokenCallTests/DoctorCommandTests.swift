import Foundation
import TestSupport
import Testing

/// `tokencall doctor` as a user runs it: its lines, its JSON and its exit status.
@Suite struct DoctorCommandTests {
    static let origin = "https://app.example"

    @Test func theSoundServerPassesEveryCheckAndDoctorExitsZero() throws {
        let (server, _, url, _) = try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate,
                                                             ["--quiet", "--cors-origin", Self.origin])
        defer { server.terminate(); server.waitUntilExit() }
        // Any answer within the deadline is fast enough here, where other tests share the cores.
        let asked = ["doctor", url.absoluteString, "--uid", "42", "--channel", "room", "--origin", Self.origin,
                     "--request-timeout", "60", "--latency-limit", "60000"]
        let environment = ["APP_ID": TestCredentials.appID, "APP_CERTIFICATE": TestCredentials.certificate]
        let text = try TokenCallProcess.run(asked, environment: environment)
        #expect(text.status == 0, "\(text.stdout)\(text.stderr)")
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("ok   reachable: HTTP 200 in ") == true)
        #expect(lines.contains("ok   audience: for App ID \(TestCredentials.appID), channel \"room\", uid 42, publisher"))
        #expect(lines.last == "all 12 checks passed")

        let json = try TokenCallProcess.run(asked + ["--json"], environment: environment)
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["ok"] as? Bool == true)
        #expect((object["checks"] as? [[String: Any]])?.count == 12)
        #expect(!json.stdout.contains(TestCredentials.certificate) && !text.stdout.contains(TestCredentials.certificate))
    }

    /// `{expire}` in a template asks for `--token-lifetime`, as it does for join; without the option it was always 3600.
    @Test func theTokenLifetimeReachesTheServerThroughExpire() throws {
        let (server, _, url, _) = try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate, ["--quiet"])
        defer { server.terminate(); server.waitUntilExit() }
        let result = try TokenCallProcess.run(["doctor", url.absoluteString, "--token-request", "agora-token-service", "--token-lifetime", "600",
                                               "--request-timeout", "60", "--latency-limit", "60000"])
        #expect(result.stdout.contains("\nok   lifetime: 600 s (10 min)\n"), "\(result.stdout)\(result.stderr)")
        #expect(result.status == 0)
    }

    @Test func aServerThatCannotBeReachedFailsWithExitOne() throws {
        let result = try TokenCallProcess.run(["doctor", "http://127.0.0.1:1", "--request-timeout", "2"])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("FAIL reachable: cannot reach the token server: connection refused → check the URL"))
        #expect(result.stdout.hasSuffix("\nskip bad-input: not checked, because reachable failed\n1 of 10 checks failed, 9 not checked because of it\n"),
                "\(result.stdout)")
    }

    /// `--junit FILE`: a testcase per check, the failed one with its words and what to do, the ones it left
    /// unchecked skipped, as CI reporters show them.
    @Test func junitHasATestcasePerCheckTheFailureAndTheSkipped() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/doctor.xml"
        let result = try TokenCallProcess.run(["doctor", "http://127.0.0.1:1", "--request-timeout", "2", "--junit", path])
        #expect(result.status == 1)
        let xml = try String(contentsOfFile: path, encoding: .utf8)
        #expect(xml.contains(#"<testsuites name="tokencall doctor" tests="10" failures="1" errors="0" skipped="9" "#), "\(xml)")
        #expect(xml.contains(#"<testcase classname="tokencall.doctor" name="reachable" time="0.000">"#
                             + "\n" + #"      <failure message="cannot reach the token server: connection refused → check the URL"#), "\(xml)")
        #expect(xml.contains(#"<skipped message="not checked, because reachable failed"/>"#), "\(xml)")
        let again = try TokenCallProcess.run(["doctor", "http://127.0.0.1:1", "--request-timeout", "2", "--junit", path])
        #expect(again.status == 1 && again.stderr.contains("--junit"), "a file that is there is not written over: \(again.stderr)")
    }

    @Test(arguments: [
        (["doctor"], "missing"),
        (["doctor", "ftp://example.com"], "URL must be an http:// or https:// URL with a host"),
        (["doctor", "http://127.0.0.1:1", "--uid", "-1"], "--uid must be an integer from 0 to 4294967295"),
        (["doctor", "http://127.0.0.1:1", "--account", "alice"], "the request sends {uid}, a number, but this join uses a user account"),
        (["doctor", "http://127.0.0.1:1", "--origin", "https://app.example/"], "--origin must be an origin as a browser sends it"),
        (["doctor", "http://127.0.0.1:1", "--role", "admin"], "--role must be publisher, subscriber, 1 or 2"),
        (["doctor", "http://127.0.0.1:1", "--token-lifetime", "600"], "--token-lifetime reaches your server only through {expire}, which --token-request fetch"),
        (["doctor", "http://127.0.0.1:1", "--token-request", "agora-token-service", "--token-lifetime", "0"], "--token-lifetime must be an integer from 1 to 86400"),
        (["doctor", "http://127.0.0.1:1", "--token-request", "graphql"], "--token-request: \"graphql\" is neither a request shape nor a template"),
    ])
    func usageErrorsSayWhatIsWrongAndExit64(arguments: [String], message: String) throws {
        let result = try TokenCallProcess.run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("\nsee tokencall doctor --help\n"), "the help, not 40 lines of it: \(result.stderr)")
    }
}
