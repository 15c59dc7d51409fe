import AccessToken
@testable import CallScreen
import ChannelEngine
import Foundation
import TestSupport
import Testing

/// What a test's process writes to a pipe, read as it comes so that the process never waits on a full pipe.
final class WholeOutput: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()

    init(_ pipe: Pipe) {
        DispatchQueue.global().async { [self] in
            data = pipe.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }
    }

    /// Everything, once the writer has closed its end.
    var text: String {
        done.wait()
        done.signal()
        return String(decoding: data, as: UTF8.self)
    }
}

/// Issue 22's Done-when, in Debian's Chromium driven headless by Selenium (`Browser/browser_test.py`) with its fake
/// camera: a page and a `join --hub` process meet and see each other's video; a page on another origin written like
/// Agora's web guide renews, or with renewal off is put out at its token's end; a token for another channel and a
/// page of an origin not allowed are kept out.
@Suite(.serialized) struct BrowserTests {
    static let python = "/usr/bin/python3"
    static let harness = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Browser/browser_test.py")

    /// Why the browser tests cannot run here, in words that say what to do; nil when they can.
    static func missingTools() -> String? {
        var missing = ["/usr/bin/chromium": "chromium", "/usr/bin/chromedriver": "chromium-driver"]
            .filter { !FileManager.default.isExecutableFile(atPath: $0.key) }.map(\.value).sorted()
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: python)
        probe.arguments = ["-c", "import selenium"]
        probe.standardError = FileHandle.nullDevice
        if (try? probe.run()) == nil { missing.append("python3-selenium") } else {
            probe.waitUntilExit()
            if probe.terminationStatus != 0 { missing.append("python3-selenium") }
        }
        guard !missing.isEmpty else { return nil }
        return "the browser tests need Debian's \(missing.joined(separator: ", ")): run `make deps` (Scripts/deps.sh installs them)"
    }

    /// The colours uid's synthetic camera sends, whatever the moment.
    func sentColours(ofUid uid: UInt) -> Set<Pixel> {
        Set((0..<100).flatMap { tenth in
            VideoFrameSource(uid: uid).frame(at: .milliseconds(Int64(tenth) * 100), width: 32, height: 18).pixels
        })
    }

    /// How a colour looks on a 256-colour screen, as the screenshot writes it.
    func screenColour(_ pixel: Pixel) -> String {
        TerminalPalette.colors(of: CellStyle(foreground: ScreenRenderer.color(pixel, 256))).foreground.hex
    }

    func pixels(_ value: Any?) -> [Pixel] {
        (value as? [[Int]] ?? []).compactMap { rgb in
            rgb.count == 3 ? Pixel(red: UInt8(clamping: rgb[0]), green: UInt8(clamping: rgb[1]), blue: UInt8(clamping: rgb[2])) : nil
        }
    }

    struct PageEvent {
        let name: String
        let args: [Any]
        let at: Double
    }

    func events(_ page: [String: Any]?) -> [PageEvent] {
        (page?["events"] as? [[String: Any]] ?? []).map {
            PageEvent(name: $0["name"] as? String ?? "", args: $0["args"] as? [Any] ?? [], at: ($0["at"] as? Double) ?? 0)
        }
    }

    @Test func aTerminalAndChromiumMeetAndGuidePagesRenewExpireAndAreKeptOut() async throws {
        try await onOwnThread { try self.aTerminalAndChromiumMeetAndGuidePagesRenewExpireAndAreKeptOutBlocking() }
    }

    func aTerminalAndChromiumMeetAndGuidePagesRenewExpireAndAreKeptOutBlocking() throws {
        if let missing = Self.missingTools() {
            Issue.record(Comment(rawValue: missing))
            return
        }
        let guidePort = try #require(Loopback.freePort()), elsewherePort = try #require(Loopback.freePort())
        let (server, _, base, _) = try TokenCallProcess.serve(
            appID: TestCredentials.appID, certificate: TestCredentials.certificate,
            ["--quiet", "--token-lifetime", "40", "--cors-origin", "http://127.0.0.1:\(guidePort)"])
        defer { server.terminate(); server.waitUntilExit() }
        let port = try #require(base.port)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let picture = directory.appendingPathComponent("terminal.svg"), record = directory.appendingPathComponent("terminal.jsonl")
        func join(channel: String, uid: Int, _ extra: [String]) throws -> (Process, WholeOutput, WholeOutput) {
            let (process, out, err) = try TokenCallProcess.start(
                ["join", "--hub", "ws://127.0.0.1:\(port)/hub", "--channel", channel, "--uid", "\(uid)", "--remote-users", "0",
                 "--token-url", "http://127.0.0.1:\(port)/fetch_rtc_token"] + extra, environment: ["PATH": "/usr/bin:/bin"])
            return (process, WholeOutput(out), WholeOutput(err))
        }
        // The terminal in "meet up: 1" draws its screen when its 35 s are over, while the page is still there (46 s). The
        // name needs escaping in a URL, so neither puts it in the hub's (the hub refuses it escaped).
        let (meeter, _, meeterErr) = try join(channel: "meet up: 1", uid: 1, ["--duration", "35", "--screenshot", picture.path,
                                                                         "--record", record.path])
        let (watcher, watcherOut, _) = try join(channel: "tokens", uid: 2, ["--duration", "90", "--json"])
        defer { if watcher.isRunning { watcher.terminate() } }

        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: Self.python)
        browser.arguments = [Self.harness.path, "--server", "http://127.0.0.1:\(port)", "--app-id", TestCredentials.appID,
                             "--guide-port", "\(guidePort)", "--elsewhere-port", "\(elsewherePort)", "--meet", "meet up: 1",
                             "--tokens", "tokens", "--seconds", "46"]
        let browserOut = Pipe(), browserErr = Pipe()
        (browser.standardOutput, browser.standardError) = (browserOut, browserErr)
        try browser.run()
        let (output, errors) = (WholeOutput(browserOut), WholeOutput(browserErr))
        // A client that joins "tokens" and then says nothing: after the hub's 20 s of silence the pages see it time out.
        let silent = try WebSocketTestClient.open(port: UInt16(port), path: "/hub?channel=tokens")
        let silentToken = try AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                                    channel: "tokens", user: .uid(30), role: .publisher, tokenExpire: 600,
                                                    privilegeExpire: 600)
        silent.send(text: #"{"type":"join","channel":"tokens","uid":30,"token":"\#(silentToken)"}"#)
        #expect(try silent.nextText()?.contains(#""type":"joined""#) == true)
        let pid = browser.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + 120) { kill(pid, SIGKILL) }
        browser.waitUntilExit()
        meeter.waitUntilExit()
        watcher.terminate()
        watcher.waitUntilExit()
        try #require(browser.terminationStatus == 0, "the browser harness failed: \(errors.text)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(output.text.utf8)) as? [String: Any], "\(output.text)")
        let console = (seen["console"] as? [String] ?? []).joined(separator: "\n")

        // The page and the terminal meet: each sees the other join.
        let meet = try #require(seen["meet"] as? [String: Any])
        let log = meet["log"] as? String ?? ""
        #expect(log.contains("user-joined uid 1"), "the page did not see the terminal join: \(log)\n\(console)")
        let meeterErrors = meeterErr.text
        #expect(meeter.terminationStatus == 0, "\(meeterErrors)")
        let meeterSaw = (try? String(contentsOf: record, encoding: .utf8)) ?? ""
        #expect(meeterSaw.contains(#""event": "didJoinedOfUid", "uid": 7"#), "the terminal did not see the page join")
        #expect(meeterSaw.contains(#""event": "firstRemoteVideoFrame", "uid": 7"#), "the terminal got no video from the page")

        // The terminal's picture shows the fake camera's main colour in the page user's tile.
        let camera = pixels(meet["camera"])
        try #require(!camera.isEmpty, "the page's camera did not play: \(console)")
        let own = Set(sentColours(ofUid: 1).map(screenColour))
        let cameraColours = Dictionary(grouping: camera.map(screenColour), by: { $0 }).mapValues(\.count)
            .filter { !own.contains($0.key) }.sorted { $0.value > $1.value }
        let main = try #require(cameraColours.first?.key, "the fake camera's colours are all the terminal's own")
        let svg = (try? String(contentsOf: picture, encoding: .utf8)) ?? ""
        #expect(svg.contains(#"fill="\#(main)""#), "the fake camera's \(main) is not in the terminal's picture")
        #expect(svg.contains("uid 7"))

        // The <video class="agora_video_player"> play() makes shows the terminal's frames: every cell one of the colours
        // it sends.
        let drawn = pixels(meet["remote"])
        #expect(drawn.count == 32 * 18, "no video for uid 1 in the page: \(meet["canvasSize"] ?? "none")\n\(console)")
        #expect(Set(drawn).count > 1, "the video is one colour: nothing drawn")
        #expect(Set(drawn).isSubset(of: sentColours(ofUid: 1)), "the video shows colours the terminal never sent")

        // Written like Agora's guide, from another origin: renewed every 10 s with 40 s tokens, and still in.
        let renewing = events(seen["renewing"] as? [String: Any])
        let joinedAt = try #require(renewing.first { $0.name == "joined" }?.at, "the renewing page did not join: \(renewing.map(\.name))\n\(console)")
        let renewals = [joinedAt] + renewing.filter { $0.name == "renewed" }.map(\.at)
        #expect(renewals.count >= 4, "renewed \(renewals.count - 1) times in 46 s")
        for (earlier, later) in zip(renewals, renewals.dropFirst()) {
            #expect((8_000...12_500).contains(later - earlier), "a renewal \(Int(later - earlier)) ms after the one before")
        }
        #expect((seen["renewing"] as? [String: Any])?["state"] as? String == "CONNECTED")
        #expect(renewing.contains { $0.name == "user-joined" && $0.args.first as? Int == 30 })
        #expect(renewing.contains { $0.name == "user-left" && $0.args.first as? Int == 30 && $0.args.last as? String == "ServerTimeOut" },
                "the silent client did not time out: \(renewing.map { "\($0.name) \($0.args)" })")
        withExtendedLifetime(silent) {}
        #expect(!renewing.contains { $0.name == "token-privilege-did-expire" })

        // With renewal off: did-expire and DISCONNECTED/TOKEN_EXPIRE at the token's end, and the terminal sees it go.
        let expiring = events(seen["expiring"] as? [String: Any])
        let expiringJoined = try #require(expiring.first { $0.name == "joined" }?.at, "\(expiring.map(\.name))")
        let expired = try #require(expiring.first { $0.name == "token-privilege-did-expire" }?.at, "\(expiring.map(\.name))")
        #expect((37_000...42_000).contains(expired - expiringJoined), "did-expire \(Int(expired - expiringJoined)) ms after joining")
        #expect(expiring.contains { $0.name == "connection-state-change" && $0.args.compactMap { $0 as? String } == ["DISCONNECTED", "CONNECTED", "TOKEN_EXPIRE"] },
                "\(expiring.map { "\($0.name) \($0.args)" })")
        let watcherSaw = watcherOut.text
        for line in [#""event": "didJoinedOfUid", "uid": 21"#, #""event": "didJoinedOfUid", "uid": 22"#,
                     #""event": "didOfflineOfUid", "uid": 22, "reason": "quit""#] {
            #expect(watcherSaw.contains(line), "the terminal in tokens did not see \(line)")
        }

        // A token for another channel: CAN_NOT_GET_GATEWAY_SERVER, and nothing of the channel learnt.
        let foreign = events(seen["foreign"] as? [String: Any])
        let refusal = try #require(foreign.first { $0.name == "join-failed" }, "\(foreign.map(\.name))")
        #expect(refusal.args.first as? String == "CAN_NOT_GET_GATEWAY_SERVER")
        #expect((refusal.args.dropFirst().first as? String)?.hasSuffix("CAN_NOT_GET_GATEWAY_SERVER: invalid token, authorized failed") == true,
                "\(refusal.args)")
        #expect(!foreign.contains { $0.name == "user-joined" })
        #expect(refusal.args.last as? Int == 0, "the refused page has remote users")
        #expect(!watcherSaw.contains(#""uid": 23"#))

        // A page of an origin not allowed cannot open the hub, with the SDK or a bare WebSocket.
        let elsewhere = events(seen["elsewhere"] as? [String: Any])
        #expect(elsewhere.first { $0.name == "join-failed" }?.args.first as? String == "WS_ERR", "\(elsewhere.map { "\($0.name) \($0.args)" })")
        #expect(elsewhere.contains { $0.name == "probe-closed" } && !elsewhere.contains { $0.name == "probe-open" })
        #expect(!watcherSaw.contains(#""uid": 24"#))

        // The ES module through an import map: it joins, and refuses what the SDK refuses with the SDK's codes.
        let module = events(seen["module"] as? [String: Any])
        func outcome(_ name: String) -> Any? { module.first { $0.name == name }?.args.first }
        #expect((outcome("loaded") as? String)?.hasPrefix("4.") == true, "\(module.map { "\($0.name) \($0.args)" })\n\(console)")
        #expect(outcome("empty-token") as? String == "INVALID_PARAMS")
        #expect(outcome("joined") as? Int == 25)
        #expect(outcome("second-join") as? String == "INVALID_OPERATION")
        #expect(outcome("rtc-role") as? String == "INVALID_OPERATION")
        #expect(outcome("bad-renewal") as? String == "UNEXPECTED_RESPONSE")
        #expect(outcome("left") as? String == "DISCONNECTED")
        #expect(watcherSaw.contains(#""event": "didOfflineOfUid", "uid": 25, "reason": "quit""#), "the terminal did not see the module's page leave")

        // Issue 36: a page written like video-sdk-samples-js joins the terminal in "tokens", sees its video as a
        // <video class="agora_video_player">, reads frames, renews and leaves, with no error in its console.
        let samples = events(seen["samples"] as? [String: Any])
        let said = samples.map { "\($0.name) \($0.args)" }.joined(separator: "\n")
        func first(_ name: String) -> [Any]? { samples.first { $0.name == name }?.args }
        #expect(first("loaded")?.dropFirst().map { "\($0)" } == ["2", "GLOBAL", "LEAVE", "1"], "\(said)\n\(console)")
        #expect(first("bad-area")?.first as? String == "INVALID_PARAMS")
        #expect(first("h265")?.first as? String == "h265")
        #expect(first("bad-proxy")?.first as? String == "INVALID_PARAMS")
        #expect(first("joined")?.first as? Int == 26, "\(said)")
        #expect(first("proxy-after-join")?.first as? String == "INVALID_OPERATION")
        #expect(first("is-using-cloud-proxy")?.first as? Bool == false, "\(said)")
        #expect(first("bad-preset")?.first as? String == "INVALID_PARAMS")
        #expect(first("bad-screen")?.first as? String == "INVALID_PARAMS")
        #expect(first("local-player")?.map { "\($0)" } == ["video", "video"])
        #expect(first("frame-before-play")?.first is NSNull, "getCurrentFrameData before play() is not null: \(said)")
        #expect(first("set-device")?.map { "\($0)" } == ["live", "1"], "\(said)")
        #expect(first("bad-device")?.first as? String == "INVALID_PARAMS")
        #expect(first("bad-encoder")?.first as? String == "INVALID_PARAMS")
        #expect(first("published")?.first as? String == "audio,video")
        let player = try #require(samples.first { $0.name == "remote-player" && $0.args.first as? Int == 2 }?.args, "\(said)\n\(console)")
        #expect((player[1] as? String)?.hasPrefix("agora-video-player-track-video-2-") == true, "\(player)")
        #expect(player.dropFirst(2).map { "\($0)" } == ["video", "live"])
        #expect(samples.filter { $0.name == "renewed" }.count >= 2, "\(said)")
        let volumes = samples.filter { $0.name == "volume-indicator" }
        #expect(volumes.count >= 5, "\(said)")
        #expect(volumes.contains { (($0.args.first as? [[Any]]) ?? []).contains { $0.first as? Int == 26 && ($0.last as? Int ?? 0) > 0 } },
                "the fake microphone's tone was never heard: \(volumes.map(\.args))")
        let local = first("local-frame")?.compactMap { $0 as? Int } ?? []
        #expect(local.count == 2 && local.allSatisfy { $0 > 2 }, "\(said)")
        let stats = first("stats") ?? []
        let counts = stats.prefix(6).map { $0 as? Int ?? -1 }  // Duration, SendBytes, RecvBytes, UserCount, sent width, height
        #expect(counts.count == 6 && counts[0] >= 30 && counts[1] > 0 && counts[2] > 0, "\(stats)")
        #expect(counts.count == 6 && counts[3] >= 2 && Array(counts.suffix(2)) == [32, 18], "\(stats)")
        #expect((stats.last as? [String: [Int]])?["2"] == [32, 18], "\(stats)")
        // getCurrentFrameData on the timer: the picture, 10 pixels a cell, and more than one colour; the <video> as large.
        #expect((first("frames")?.first as? [String: [Int]])?["2"].map { [$0[0], $0[1], $0[3], $0[4]] } == [320, 180, 320, 180], "\(said)")
        #expect(((first("frames")?.first as? [String: [Int]])?["2"]?[2] ?? 0) > 1, "\(said)")
        #expect(first("left")?.first as? String == "DISCONNECTED", "\(said)")
        #expect(!samples.contains { $0.name == "console-error" || $0.name == "failed" }, "\(said)")
        #expect(watcherSaw.contains(#""event": "didJoinedOfUid", "uid": 26"#), "the terminal did not see the samples page join")
        #expect(watcherSaw.contains(#""event": "didOfflineOfUid", "uid": 26, "reason": "quit""#), "the terminal did not see the samples page leave")
    }
}

/// `serve` hands out the SDK's two shapes and the page, and says where the page is.
@Suite struct WebAssetsServedTests {
    @Test func serveGivesTheScriptTheModuleAndThePageAndPrintsThePagesAddress() throws {
        let (server, stderr, base, first) = try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate,
                                                                       ["--quiet"])
        defer { server.terminate(); server.waitUntilExit() }
        let line = first.contains("Docs/web.md") ? first : first + TokenCallProcess.read(stderr, until: "Docs/web.md")
        #expect(line.contains("web page at \(base.absoluteString)/"), "\(line)")
        let port = try #require(base.port)
        /// The answer's body and its Content-Type.
        func get(_ path: String) throws -> (String, String?) {
            let answer = try WebSocketTestClient(port: UInt16(port)).handshake("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            let parts = answer.components(separatedBy: "\r\n\r\n")
            let type = parts[0].components(separatedBy: "\r\n").first { $0.hasPrefix("Content-Type: ") }?.dropFirst("Content-Type: ".count)
            return (parts.dropFirst().joined(separator: "\r\n\r\n"), type.map(String.init))
        }
        let (classic, classicType) = try get("/AgoraRTC_N.js")
        #expect(classicType == "text/javascript; charset=utf-8")
        #expect(classic.contains("window.AgoraRTC = "))
        let (module, _) = try get("/agora-rtc-sdk-ng.js")
        #expect(module.contains("export default AgoraRTC;"))
        let (page, pageType) = try get("/")
        #expect(pageType == "text/html; charset=utf-8")
        #expect(page.contains(#"<meta name="tokencall-app-id" content="\#(TestCredentials.appID)">"#))
        #expect(page.contains(#"<script src="/AgoraRTC_N.js"></script>"#))
    }
}
