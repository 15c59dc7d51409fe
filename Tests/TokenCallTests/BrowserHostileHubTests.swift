import Foundation
import HubProtocol
import TestSupport
import Testing
import WebClient
import WebSocket

/// Issue 31's Web SDK items, in Chromium against a hostile hub that serves the SDK itself: values that name
/// `Object.prototype`'s members (`constructor`, `__proto__`, `toString`) as a reason, a code or an error are refused as
/// the terminal refuses a value it does not know, 20,000 announced users make no more than the terminal's 128, and on
/// the page at `/` a user whose account is `local` does not take the page user's own tile.
@Suite(.serialized) struct BrowserHostileHubTests {
    static let prototypeNames = ["constructor", "__proto__", "toString"]

    /// A channel's page: the SDK joins the channel the query names and records what it emits; done at the first
    /// RECONNECTING, a refused join, or the user-left of uid 5 or 99999.
    static let page = """
        <!doctype html><meta charset="utf-8"><script src="/AgoraRTC_N.js"></script><script>
        window.events = [];
        const shown = (value) => typeof value === "string" || typeof value === "number" || value === null ? value : String(value);
        const record = (name, ...args) => window.events.push({ name, args: args.map(shown) });
        const client = AgoraRTC.createClient({ mode: "rtc", codec: "vp8" });
        client.on("connection-state-change", (current, previous, reason) => {
          record("state", current, reason || null);
          if (current === "RECONNECTING") window.done = true;
        });
        client.on("user-joined", (user) => record("user-joined", user.uid, client.remoteUsers.length));
        client.on("user-left", (user, reason) => {
          record("user-left", user.uid, reason);
          if (user.uid === 5 || user.uid === 99999) window.done = true;
        });
        client.join("970ca35de60c44645bbae8a215061b33", new URLSearchParams(location.search).get("channel"), "007eJxTYA", 7)
          .then((uid) => record("joined", uid), (error) => { record("join-failed", error.code, error.message); window.done = true; });
        </script>
        """

    static func text(_ json: String) -> [UInt8] { WebSocketFrame.encode(.text, Array(json.utf8)) }

    static func joined(_ channel: String, users: [UInt32]) -> [UInt8] {
        text(HubNotice.joined(channel: channel, uid: 7, role: .broadcaster, expiresAt: 1_900_000_000,
                              users: users.map { HubPeer(uid: $0, account: nil) }).json)
    }

    /// What the hub sends in `channel` once the join comes.
    static func notices(for channel: String) -> [UInt8] {
        let name = channel.split(separator: "-", maxSplits: 1).last.map(String.init) ?? ""
        switch channel.prefix(while: { $0 != "-" }) {
        case "offline":  // the reason's name is a prototype member's
            return joined(channel, users: [5]) + text(#"{"reason":"\#(name)","reasonCode":0,"type":"userOffline","uid":5}"#)
        case "code":  // the reason's number is
            return joined(channel, users: [5]) + text(#"{"reason":"quit","reasonCode":"\#(name)","type":"userOffline","uid":5}"#)
        case "refusal":  // a refusal's error name is
            return text(#"{"error":"\#(name)","errorCode":110,"reason":"invalidToken","reasonCode":8,"state":"disconnected","#
                        + #""stateCode":1,"type":"connectionStateChanged"}"#)
        default:  // "cap": 100 users in joined, 20,000 more join, one leaves, one more joins and leaves
            var bytes = joined(channel, users: Array(1...100))
            for uid in UInt32(1000)..<21000 { bytes += text(HubNotice.userJoined(HubPeer(uid: uid, account: nil)).json) }
            bytes += text(HubNotice.userOffline(uid: 1, reason: .quit).json)
            bytes += text(HubNotice.userJoined(HubPeer(uid: 99999, account: nil)).json)
            return bytes + text(HubNotice.userOffline(uid: 99999, reason: .quit).json)
        }
    }

    /// The SDK, the page, and at /hub the notices of the channel the connection names.
    static func hostileHub() throws -> HostileServer {
        let files = WebAssets.files(appID: TestCredentials.appID)
        let script = try #require(files.first { $0.path == WebAssets.classicPath }).text
        let home = try #require(files.first { $0.path == "/" }).text
        return try HostileServer { connection in
            let target = connection.request.split(separator: " ", maxSplits: 2).dropFirst().first.map(String.init) ?? ""
            func answer(_ type: String, _ body: String) {
                connection.write(head("200 OK", ["Content-Type: \(type)", "Content-Length: \(body.utf8.count)"]) + body)
            }
            if target == WebAssets.classicPath { return answer("text/javascript; charset=utf-8", script) }
            if target.hasPrefix("/page?") { return answer("text/html; charset=utf-8", page) }
            if target == "/" { return answer("text/html; charset=utf-8", home) }
            if target == "/fetch_rtc_token" { return answer("application/json", #"{"token":"007eJxTYA","expiresIn":600}"#) }
            if target == "/hub?channel=demo" {
                // The page at /: once its publish asked (`media`) and its camera's first frame comes, the publish is
                // answered and a user whose account is "local" joins and leaves.
                guard connection.acceptWebSocket() else { return }
                _ = connection.read(upTo: .seconds(10)) { !$0.isEmpty }
                guard connection.write(joined("demo", users: [])) else { return }
                _ = connection.read(upTo: .seconds(10)) { bytes in
                    var reader = WebSocketReader(role: .server)
                    reader.append(bytes)
                    var (asked, framed) = (false, false)
                    while let event = try? reader.next() {
                        if case .binary = event { framed = true }
                        if case .text(let json) = event, (try? HubRequest(json: json))?.isMedia == true { asked = true }
                    }
                    return asked && framed
                }
                let local = HubPeer(uid: 1_000_000_001, account: "local")
                connection.write(text(HubNotice.userMedia(uid: 7, HubMedia(audio: .off, video: .on)).json)
                                 + text(HubNotice.userJoined(local).json) + text(HubNotice.userOffline(uid: local.uid, reason: .quit).json))
                connection.waitForClose(upTo: .seconds(30))
                return
            }
            guard target.hasPrefix("/hub?channel="), connection.acceptWebSocket() else { return }
            _ = connection.read(upTo: .seconds(10)) { !$0.isEmpty }  // the join
            guard connection.write(notices(for: String(target.dropFirst("/hub?channel=".count)))) else { return }
            connection.waitForClose(upTo: .seconds(30))
        }
    }

    struct Event {
        let name: String
        let args: [Any]
    }

    /// The harness on the hostile hub's pages at `paths` (with its `options`): what it printed.
    static func drive(_ paths: [String], _ options: [String] = []) throws -> [String: Any] {
        let hub = try hostileHub()
        defer { hub.stop() }
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: BrowserTests.python)
        browser.arguments = [BrowserTests.harness.path, "--seconds", "10"] + options
            + paths.flatMap { ["--page", "http://127.0.0.1:\(hub.port)\($0)"] }
        let out = Pipe(), err = Pipe()
        (browser.standardOutput, browser.standardError) = (out, err)
        try browser.run()
        let (output, errors) = (WholeOutput(out), WholeOutput(err))
        let pid = browser.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + 180) { kill(pid, SIGKILL) }
        browser.waitUntilExit()
        try #require(browser.terminationStatus == 0, "the browser harness failed: \(errors.text)")
        return try #require(try JSONSerialization.jsonObject(with: Data(output.text.utf8)) as? [String: Any], "\(output.text)")
    }

    /// Each channel's page in Chromium, in turn: what each emitted, and the browser's console.
    static func open(_ channels: [String]) throws -> (pages: [[Event]], console: [String]) {
        let seen = try drive(channels.map { "/page?channel=\($0)" })
        let pages = (seen["pages"] as? [[[String: Any]]] ?? []).map { page in
            page.map { Event(name: $0["name"] as? String ?? "", args: $0["args"] as? [Any] ?? []) }
        }
        try #require(pages.count == channels.count, "\(seen)")
        return (pages, seen["console"] as? [String] ?? [])
    }

    @Test func prototypeNamesAsReasonsCodesAndErrorsAreRefusedAsUnknownValues() async throws {
        try await onOwnThread { try self.prototypeNamesBlocking() }
    }

    func prototypeNamesBlocking() throws {
        if let missing = BrowserTests.missingTools() {
            Issue.record(Comment(rawValue: missing))
            return
        }
        let channels = Self.prototypeNames.flatMap { ["offline-\($0)", "code-\($0)", "refusal-\($0)"] }
        let (pages, console) = try Self.open(channels)
        for (channel, events) in zip(channels, pages) {
            let lines = events.map { "\($0.name) \($0.args)" }
            if channel.hasPrefix("refusal") {
                // Not taken for a refusal of code 110: the join is refused for a notice the SDK cannot read.
                let failed = try #require(events.first { $0.name == "join-failed" }, "\(channel): \(lines)")
                #expect(failed.args.first as? String == "UNEXPECTED_RESPONSE", "\(channel): \(lines)")
                #expect((failed.args.last as? String)?.hasSuffix("connectionStateChanged's error and errorCode are not one of Agora's error codes") == true,
                        "\(channel): \(lines)")
            } else {
                // The userOffline is refused: no user-left (whose reason was Object's constructor), the link dropped.
                #expect(!events.contains { $0.name == "user-left" }, "\(channel): \(lines)")
                #expect(events.contains { $0.name == "state" && $0.args.first as? String == "RECONNECTING" }, "\(channel): \(lines)")
            }
        }
        let warnings = console.filter { $0.contains("userOffline's reason and reasonCode are not one of Agora's reasons; connecting again") }
        #expect(warnings.count >= 6, "\(console)")
    }

    @Test func twentyThousandAnnouncedUsersMakeTheTerminalsLimitAndSaySo() async throws {
        try await onOwnThread { try self.announcedUsersBlocking() }
    }

    func announcedUsersBlocking() throws {
        if let missing = BrowserTests.missingTools() {
            Issue.record(Comment(rawValue: missing))
            return
        }
        let (pages, console) = try Self.open(["cap"])
        let joins = pages[0].filter { $0.name == "user-joined" }
        // 100 from joined, the first 28 who join, and 99999 once 1 has left.
        #expect(joins.count == HubPeer.announcedLimit + 1, "\(joins.count) user-joined")
        #expect(joins.compactMap { $0.args.last as? Int }.max() == HubPeer.announcedLimit)
        #expect(joins.last?.args.first as? Int == 99999)
        #expect(pages[0].contains { $0.name == "user-left" && $0.args.first as? Int == 1 })
        let said = console.filter { $0.contains("the hub names more than \(HubPeer.announcedLimit) users in cap; the others are not announced") }
        #expect(said.count == 1, "\(console.suffix(5))")
    }

    @Test func anAccountNamedLocalDoesNotTakeThePagesOwnTile() async throws {
        try await onOwnThread { try self.localAccountBlocking() }
    }

    func localAccountBlocking() throws {
        if let missing = BrowserTests.missingTools() {
            Issue.record(Comment(rawValue: missing))
            return
        }
        let read = ##"{log: document.getElementById("log").innerText, camera: !!document.querySelector("#tile-local video"), "##
            + ##"labels: [...document.querySelectorAll(".tile .label")].map((label) => label.textContent)}"##
        let seen = try Self.drive(["/"], ["--click", "join", "--done", #"document.getElementById("log").innerText.includes("user-left")"#,
                                          "--read", read])
        let page = try #require((seen["pages"] as? [[String: Any]])?.first, "\(seen)")
        let log = page["log"] as? String ?? ""
        #expect(log.contains("user-left uid local Quit"), "\(log)")
        #expect(page["camera"] as? Bool == true, "your camera's tile went with the user named local: \(page)")
        #expect(page["labels"] as? [String] == ["you, uid 7"], "\(page)")
    }
}

extension HubRequest {
    var isMedia: Bool { if case .media = self { true } else { false } }
}
