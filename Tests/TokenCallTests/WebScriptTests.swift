import Foundation
import TestSupport
import Testing
import WebClient

/// Issue 36: the SDK's JavaScript is a file (`Sources/WebClient/AgoraRTC.js`) that `node --check` reads, and what
/// `serve` hands out from it — the classic script, the ES module, the page's scripts — reads as JavaScript too.
@Suite struct WebScriptTests {
    static let node = "/usr/bin/node"
    static let sourceFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/WebClient/AgoraRTC.js")

    /// What node printed and whether it exited 0; nil (with the issue recorded) when node is missing.
    func node(_ arguments: [String]) throws -> (ok: Bool, output: String)? {
        guard FileManager.default.isExecutableFile(atPath: Self.node) else {
            Issue.record("the script checks need Debian's nodejs: run `make deps` (Scripts/deps.sh installs it)")
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.node)
        process.arguments = arguments
        let pipe = Pipe()
        (process.standardOutput, process.standardError) = (pipe, pipe)
        try process.run()
        let output = WholeOutput(pipe)
        process.waitUntilExit()
        return (process.terminationStatus == 0, output.text)
    }

    /// A served file's text in a temporary file with the given extension.
    func temporary(_ text: String, _ fileExtension: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("web-\(UUID().uuidString).\(fileExtension)")
        try Data(text.utf8).write(to: file)
        return file
    }

    func served(_ path: String) throws -> String {
        try #require(WebAssets.files(appID: TestCredentials.appID).first { $0.path == path }).text
    }

    /// The bodies of the page's `<script>` elements without a `src`.
    func inlineScripts(_ html: String) -> [String] {
        html.components(separatedBy: "<script>").dropFirst().compactMap { $0.components(separatedBy: "</script>").first }
    }

    @Test func theSourceTheClassicScriptTheModuleAndThePageScriptsAreJavaScript() throws {
        guard let source = try node(["--check", Self.sourceFile.path]) else { return }
        #expect(source.ok, "Sources/WebClient/AgoraRTC.js: \(source.output)")
        let page = try served("/")
        let scripts = inlineScripts(page)
        #expect(!scripts.isEmpty, "no inline script in the page")
        let checked: [(String, String, String)] = [(try served(WebAssets.classicPath), "js", "the classic script"),
                                                   (try served(WebAssets.modulePath), "mjs", "the ES module")]
            + scripts.map { ($0, "js", "the page's script") }
        for (text, fileExtension, name) in checked {
            let file = try temporary(text, fileExtension)
            defer { try? FileManager.default.removeItem(at: file) }
            let result = try #require(try node(["--check", file.path]))
            #expect(result.ok, "\(name) does not read as JavaScript: \(result.output)")
        }
    }
}

/// Issue 36, item 2: the ES module exports the SDK's enums and functions by name beside its default, and
/// `new AgoraRTC.createClient(...)` (as Agora's samples write it) makes a client.
@Suite struct WebModuleExportsTests {
    @Test func theModuleExportsTheEnumsAndFunctionsByNameAndCreateClientTakesNew() throws {
        let checks = WebScriptTests()
        let module = try checks.temporary(try checks.served(WebAssets.modulePath), "mjs")
        defer { try? FileManager.default.removeItem(at: module) }
        let script = """
            const m = await import(\(String(reflecting: module.absoluteString)));
            const names = ["AREAS", "AudienceLatencyLevelType", "ChannelMediaRelayError", "ChannelMediaRelayEvent",
                           "ChannelMediaRelayState", "ConnectionDisconnectedReason", "RemoteStreamFallbackType", "RemoteStreamType",
                           "createClient", "createCameraVideoTrack", "createMicrophoneAudioTrack", "createScreenVideoTrack",
                           "checkSystemRequirements", "getDevices", "setArea"];
            const exported = Object.keys(m).filter((name) => name !== "default");
            const missing = names.concat(exported).filter((name) => m[name] === undefined || m[name] !== m.default[name]);
            const client = new m.default.createClient({ mode: "live", codec: "h265" });
            console.log(JSON.stringify({
              missing,
              exported: exported.length,
              latency: m.AudienceLatencyLevelType.AUDIENCE_LEVEL_ULTRA_LOW_LATENCY,
              latencyName: m.AudienceLatencyLevelType[1],
              area: m.AREAS.NORTH_AMERICA,
              reason: m.ConnectionDisconnectedReason.TOKEN_EXPIRE,
              low: m.RemoteStreamType.LOW_STREAM,
              fallback: m.RemoteStreamFallbackType.AUDIO_ONLY,
              client: [client.mode, client.codec, client.connectionState, typeof client.join],
            }));
            """
        guard let result = try checks.node(["--input-type=module", "-e", script]) else { return }
        try #require(result.ok, "\(result.output)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], "\(result.output)")
        #expect(seen["missing"] as? [String] == [], "not exported by name: \(seen["missing"] ?? "")")
        #expect((seen["exported"] as? Int ?? 0) >= 26, "\(seen)")
        #expect(seen["latency"] as? Int == 2)
        #expect(seen["latencyName"] as? String == "AUDIENCE_LEVEL_LOW_LATENCY")
        #expect(seen["area"] as? String == "NORTH_AMERICA")
        #expect(seen["reason"] as? String == "TOKEN_EXPIRE")
        #expect(seen["low"] as? Int == 1)
        #expect(seen["fallback"] as? Int == 2)
        #expect(seen["client"] as? [String] == ["live", "h265", "DISCONNECTED", "function"])
    }
}
