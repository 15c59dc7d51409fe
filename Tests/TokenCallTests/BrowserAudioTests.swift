import AccessToken
import Foundation
import TestSupport
import Testing

/// Issue 36's audio and issue 37's "peers see it", in Chromium with a terminal over one hub: no audio crosses the hub,
/// the published and muted states do, each way.
@Suite(.serialized) struct BrowserAudioTests {
    @Test func aTerminalAndChromiumSeeEachOthersAudioPublishedAndTheBrowsersMuted() async throws {
        try await onOwnThread { try self.audioStatesBlocking() }
    }

    func audioStatesBlocking() throws {
        if let missing = BrowserTests.missingTools() {
            Issue.record(Comment(rawValue: missing))
            return
        }
        let pagePort = try #require(Loopback.freePort())
        let (server, _, base, _) = try TokenCallProcess.serve(
            appID: TestCredentials.appID, certificate: TestCredentials.certificate,
            ["--quiet", "--cors-origin", "http://127.0.0.1:\(pagePort)"])
        defer { server.terminate(); server.waitUntilExit() }
        let port = try #require(base.port)
        let record = FileManager.default.temporaryDirectory.appendingPathComponent("audio-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: record) }
        let (terminal, _, terminalErr) = try TokenCallProcess.start(
            ["join", "--hub", "ws://127.0.0.1:\(port)/hub", "--channel", "audio", "--uid", "1", "--remote-users", "0",
             "--token-url", "http://127.0.0.1:\(port)/fetch_rtc_token", "--duration", "30", "--record", record.path],
            environment: ["PATH": "/usr/bin:/bin"])
        let terminalErrors = WholeOutput(terminalErr)
        defer { if terminal.isRunning { terminal.terminate() } }

        // A peer that joins with its microphone published and muted, as a terminal after muteLocalAudioStream(true).
        let muted = try WebSocketTestClient.open(port: UInt16(port), path: "/hub?channel=audio")
        let mutedToken = try AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                                   channel: "audio", user: .uid(40), role: .publisher, tokenExpire: 600,
                                                   privilegeExpire: 600)
        muted.send(text: #"{"type":"join","channel":"audio","uid":40,"token":"\#(mutedToken)","audio":"muted","video":"off"}"#)
        #expect(try muted.nextText()?.contains(#""type":"joined""#) == true)

        let query = "server=http://127.0.0.1:\(port)&appId=\(TestCredentials.appID)&channel=audio&uid=31"
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: BrowserTests.python)
        browser.arguments = [BrowserTests.harness.path, "--seconds", "25", "--serve-port", "\(pagePort)",
                             "--page", "http://127.0.0.1:\(pagePort)/audio.html?\(query)"]
        let out = Pipe(), err = Pipe()
        (browser.standardOutput, browser.standardError) = (out, err)
        try browser.run()
        let (output, errors) = (WholeOutput(out), WholeOutput(err))
        let pid = browser.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + 120) { kill(pid, SIGKILL) }
        browser.waitUntilExit()
        terminal.terminate()
        terminal.waitUntilExit()
        try #require(browser.terminationStatus == 0, "the browser harness failed: \(errors.text)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(output.text.utf8)) as? [String: Any], "\(output.text)")
        let console = (seen["console"] as? [String] ?? []).joined(separator: "\n")
        let page = ((seen["pages"] as? [[[String: Any]]])?.first ?? []).map { event in
            [event["name"] as? String ?? ""] + (event["args"] as? [Any] ?? []).map { "\($0)" }
        }

        // The browser sees the terminal's audio published, subscribes and plays its tone (setVolume(200): 0.6).
        #expect(page.contains(["user-published", "1", "audio"]), "\(page)\n\(console)")
        #expect(page.contains(["remote-audio", "1", "1", "0.6"]), "\(page)\n\(console)")
        #expect(page.contains(["published"]) && page.contains(["muted"]) && page.contains(["left"]), "\(page)\n\(console)")
        #expect(!page.contains { $0.first == "failed" }, "\(page)\n\(console)")
        // And sees the muted peer's audio published and muted: no tone (level 0), "mute-audio".
        #expect(page.contains(["user-published", "40", "audio"]), "\(page)\n\(console)")
        #expect(page.contains(["user-info-updated", "40", "mute-audio"]), "\(page)\n\(console)")
        #expect(page.contains(["remote-audio", "40", "1", "0"]), "\(page)\n\(console)")

        // The terminal sees the browser's microphone published, then muted.
        let recorded = (try? String(contentsOf: record, encoding: .utf8)) ?? ""
        let lines = recorded.split(separator: "\n")
            .filter { $0.contains(#""event": "remoteAudioStateChanged", "uid": 31"#) }
        #expect(lines.contains { $0.contains(#""state": "decoding""#) }, "\(lines)\n\(terminalErrors.text)")
        #expect(lines.last?.contains(#""state": "stopped", "reason": "remoteMuted""#) == true, "\(lines)\n\(terminalErrors.text)")
    }
}
