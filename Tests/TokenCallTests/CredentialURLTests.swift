import Foundation
import TestSupport
import Testing

/// URLs carrying credentials (`--token-url` with a user, a password and `?api_key=`, a `--token-request` template and
/// a `--hub` address with one in the query) are shown and written without them: on the screen, in a screenshot, a
/// cast, a recording and the headless lines. The token server and the hub are one `tokencall serve`.
@Suite(.serialized) struct CredentialURLTests {
    static let secrets = ["alice", "hunter2", "SERVERKEY", "TEMPLATEKEY", "HUBKEY"]

    /// A server to join through, and the join options that name it with credentials; `shown` is its URL as shown.
    private func server() throws -> (Process, arguments: [String], shown: String) {
        let (process, _, url, _) = try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate)
        let port = try #require(url.port)
        return (process, ["--token-url", "http://alice:hunter2@127.0.0.1:\(port)/?api_key=SERVERKEY",
                          "--token-request", "GET /rtc/{channel}/{roleName}/{userType}/{user}/?api_key=TEMPLATEKEY",
                          "--hub", "ws://127.0.0.1:\(port)/hub?access_token=HUBKEY", "--uid", "5", "--seed", "4"],
                "127.0.0.1:\(port)")
    }

    private func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tokencall-\(UUID().uuidString)-\(name)").path
    }

    private func expectNoSecret(_ text: String, in what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in Self.secrets {
            #expect(!text.contains(secret), "\(what) holds \(secret): \(text)", sourceLocation: sourceLocation)
        }
    }

    @Test func theHeadlessLinesAndTheRecordingHoldNoCredential() throws {
        let path = temporaryPath("call.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (serve, arguments, host) = try server()
        defer { serve.terminate() }
        let join = try TokenCallProcess.run(["join", "--headless", "--duration", "2", "--record", path] + arguments, limit: .seconds(60))
        #expect(join.status == 0, "\(join.stderr)")
        #expect(join.stdout.contains("note text=\"the channel is on the hub at ws://\(host)/hub, which checks every token\""),
                "\(join.stdout)")
        expectNoSecret(join.stdout, in: "stdout")
        let recording = try String(contentsOfFile: path, encoding: .utf8)
        expectNoSecret(recording, in: "the recording")
        let header = try #require(try JSONSerialization.jsonObject(with: Data(recording.prefix { $0 != "\n" }.utf8)) as? [String: Any])
        let options = try #require(header["options"] as? [String: String])
        #expect(options["token-url"] == "http://\(host)/")
        #expect(options["token-request"] == "GET /rtc/{channel}/{roleName}/{userType}/{user}/")
        #expect(options["hub"] == "ws://\(host)/hub")
        #expect((header["call"] as? [String: Any])?["tokenServer"] as? String == "http://\(host)/")
        let replay = try TokenCallProcess.run(["replay", "--headless", path])
        #expect(replay.status == 0 && replay.stdout == join.stdout, "\(replay.stderr)")
    }

    @Test func aScreenshotShowsTheURLsWithoutCredentials() throws {
        let path = temporaryPath("call.svg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (serve, arguments, host) = try server()
        defer { serve.terminate() }
        let join = try TokenCallProcess.run(["join", "--screenshot", path, "--duration", "2", "--size", "200x40"] + arguments,
                                            limit: .seconds(60))
        #expect(join.status == 0, "\(join.stderr)")
        let picture = try String(contentsOfFile: path, encoding: .utf8)
        #expect(picture.contains("token server http://\(host)/"))
        #expect(picture.contains("hub ws://\(host)/hub "))
        expectNoSecret(picture, in: "the picture")
    }

    @Test func theCallScreenAndItsCastShowTheURLsWithoutCredentials() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is needed; make deps installs it")
        let path = temporaryPath("call.cast")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (serve, arguments, host) = try server()
        defer { serve.terminate() }
        let screen = try TmuxScreen(width: 200, height: 40, command: "TERM=tmux-256color \(TokenCallProcess.binary.path) --cast \(path) "
                                    + "\(arguments.map(TmuxScreen.quoted).joined(separator: " ")); echo EXIT=$?; sleep 60")
        screen.waitFor("token server http://\(host)/")
        screen.waitFor("hub ws://\(host)/hub connected")
        expectNoSecret(screen.screen, in: "the screen")
        try screen.press("q")
        screen.waitFor("EXIT=0")
        let cast = try String(contentsOfFile: path, encoding: .utf8)
        #expect(cast.contains("token server http://\(host)/"))
        expectNoSecret(cast, in: "the cast")
    }
}
