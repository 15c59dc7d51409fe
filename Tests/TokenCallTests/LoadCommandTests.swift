import Foundation
import JSON
import TestSupport
import Testing

/// `tokencall load` against a `tokencall serve` of its own, as a user runs it.
@Suite struct LoadCommandTests {
    private func serve(_ extra: [String] = []) throws -> (Process, URL) {
        let (process, _, base, _) = try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate,
                                                                ["--quiet"] + extra)
        return (process, base)
    }

    private func figures(_ result: TokenCallProcess.Result) throws -> [String: JSONValue] {
        try #require(JSONValue.parse(Array(result.stdout.utf8))?.object, "\(result.stdout) \(result.stderr)")
    }

    private func count(_ figures: [String: JSONValue], _ name: String) -> Int64? {
        if case .integer(let count)? = figures[name]?.object?["count"] { count } else { nil }
    }

    @Test func clientsJoinRenewAndSeeEachOthersVideoWithoutErrors() throws {
        // 32 s tokens are warned of 2 s after they are issued, so each client renews within the run.
        let (server, base) = try serve(["--token-lifetime", "32"])
        defer { server.terminate(); server.waitUntilExit() }
        let hub = "ws://127.0.0.1:\(base.port!)/hub"
        let result = try TokenCallProcess.run(["load", "--hub", hub, "--token-url", base.absoluteString, "--clients", "6",
                                               "--channels", "2", "--duration", "4", "--fps", "2", "--json"])
        let figures = try figures(result)
        #expect(result.status == 0)
        #expect(count(figures, "join") == 6)
        #expect((count(figures, "renewal") ?? 0) >= 6)
        // Three in a channel: each frame reaches the two others.
        #expect((count(figures, "videoFanOut") ?? 0) > 0)
        #expect(figures["errors"] == .object([:]))
        #expect(figures["connectionsLost"] == .integer(0))
    }

    @Test func withoutAHubTheTokenServerTakesAFetchThenARenewalStampede() throws {
        let (server, base) = try serve()
        defer { server.terminate(); server.waitUntilExit() }
        let result = try TokenCallProcess.run(["load", "--no-hub", "--token-url", base.absoluteString, "--clients", "20", "--json"])
        let figures = try figures(result)
        #expect(result.status == 0)
        #expect(count(figures, "tokenFetch") == 20)
        #expect(count(figures, "renewalStampede") == 20)
    }

    @Test func originIsSentToAServerThatWantsOne() throws {
        let server = try OriginRequiredServer()
        defer { server.stop() }
        let asked = ["load", "--no-hub", "--token-url", server.url.absoluteString, "--clients", "3"]
        let refused = try TokenCallProcess.run(asked)
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("errors: renewalStampede: originRequired ×3, tokenFetch: originRequired ×3"), "\(refused.stdout)")
        let loaded = try TokenCallProcess.run(asked + ["--origin", OriginRequiredServer.origin])
        #expect(loaded.status == 0, "\(loaded.stdout)\(loaded.stderr)")
        #expect(loaded.stdout.contains("renewalStampede  3 samples  p50 "), "\(loaded.stdout)")
    }

    @Test func wrongTokensShowAsErrorsByKindAndFailTheRun() throws {
        let (server, base) = try serve(["--misconfigure", "wrong-channel"])
        defer { server.terminate(); server.waitUntilExit() }
        let result = try TokenCallProcess.run(["load", "--no-hub", "--token-url", base.absoluteString, "--clients", "5"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("errors: renewalStampede: wrongAudience ×5"), "\(result.stdout)")
    }

    @Test(arguments: [
        (["load", "--token-url", "http://127.0.0.1:1"], "give --hub ws://HOST:PORT/hub, or --no-hub"),
        (["load", "--hub", "wss://hub.example", "--token-url", "http://127.0.0.1:1"], "the path is missing"),
        (["load", "--hub", "ws://127.0.0.1:1/hub", "--no-hub", "--token-url", "http://127.0.0.1:1"], "give --hub or --no-hub, not both"),
        (["load", "--no-hub"], "give --token-url"),
        (["load", "--no-hub", "--token-url", "http://127.0.0.1:1", "--duration", "5"], "--duration is for clients in a hub"),
        (["load", "--hub", "ws://127.0.0.1:1/hub", "--token-url", "http://127.0.0.1:1", "--duration", "5", "--ramp-up", "5"],
         "--ramp-up 5 must be shorter than --duration 5"),
        (["load", "--hub", "ws://127.0.0.1:1/hub", "--token-url", "ftp://x/"], "--token-url must be an http:// or https:// URL"),
        (["load", "--no-hub", "--token-url", "http://127.0.0.1:1", "--clients", "4", "--channels", "5"], "--channels"),
    ])
    func aWrongLoadIsAUsageErrorSayingWhatToGive(_ arguments: [String], _ expected: String) throws {
        let result = try TokenCallProcess.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(expected), "\(result.stderr)")
    }

    /// A server's connection limit is named with the option that lifts it, on one line beside the errors.
    @Test func aRunAnsweredBusySaysWhichLimitAndTheOptionThatLiftsIt() throws {
        let (server, base) = try serve(["--max-connections-per-address", "2"])
        defer { server.terminate(); server.waitUntilExit() }
        let result = try TokenCallProcess.run(["load", "--no-hub", "--token-url", base.absoluteString, "--clients", "30"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("rateLimited ×"), "\(result.stdout)")
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("answered busy") }
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.hasSuffix("tokencall serve refuses connections beyond --max-connections-per-address (64) from one address and "
            + "--max-connections (256) in all; start it with both above --clients") == true, "\(result.stderr)")
    }

    /// Each option `load --help` offers either works with --no-hub, or its help says it is for --hub only.
    @Test func theHelpSaysWhichOptionsNoHubRefuses() throws {
        let help = try TokenCallProcess.run(["load", "--help"]).stdout
        let lines = help.split(separator: "\n").map(String.init)
        for name in ["duration", "ramp-up", "fps"] {
            let line = try #require(lines.first { $0.hasPrefix("  --\(name) ") }, "\(help)")
            #expect(line.contains("with --hub only"), "\(line)")
            let refused = try TokenCallProcess.run(["load", "--no-hub", "--token-url", "http://127.0.0.1:1", "--\(name)", "1"])
            #expect(refused.status == 64 && refused.stderr.contains("--\(name) is for clients in a hub"), "\(refused.stderr)")
        }
        #expect(lines.filter { $0.contains("with --hub only") }.count == 3, "no other option is refused: \(help)")
    }

    @Test func noHubOverridesAHubFromTheEnvironment() throws {
        // Read as --no-hub alone: the usage error is --no-hub's own, not "not both".
        let result = try TokenCallProcess.run(["load", "--no-hub", "--token-url", "http://127.0.0.1:1", "--duration", "5"],
                                              environment: ["TOKENCALL_HUB": "ws://127.0.0.1:1/hub"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--duration is for clients in a hub"), "\(result.stderr)")
    }

    @Test(arguments: [["load", "--no-hub", "--token-url"], ["join", "--headless", "--token-url"], ["doctor"]])
    func aTokenURLIsEchoedEscapedInItsUsageError(_ command: [String]) throws {
        let result = try TokenCallProcess.run(command + ["ftp://x/\u{1B}[2J"])
        #expect(result.status == 64)
        #expect(result.stderr.contains(#"must be an http:// or https:// URL with a host, not "ftp://x/\u001b[2J""#), "\(result.stderr)")
        #expect(!result.stderr.contains("\u{1B}"))
    }
}
