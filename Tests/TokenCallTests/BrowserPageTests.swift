import AccessToken
import Foundation
import TestSupport
import Testing

/// Issue 36, the page at `/`: in Chromium, a person fills its form and reads the token's life on its timeline — a
/// token from `serve`'s own token route fetched, joined, warned of 30 s before its end and renewed; a pasted token of
/// another channel refused in the SDK's words; a token URL on an origin that does not allow the page's refused in
/// words that name CORS; an account with a `GET` token URL of placeholders, in a channel whose name is HTML, shown as
/// text; a token URL that answers 404 refused with the answer's words.
@Suite(.serialized) struct BrowserPageTests {
    @Test func theFormsTimelineShowsARenewalARefusalInTheSDKsWordsAndACORSRefusal() async throws {
        try await onOwnThread { try self.timelineBlocking() }
    }

    /// The timeline's lines as (kind, text).
    func timeline(_ page: Any?) -> [(kind: String, text: String)] {
        ((page as? [String: Any])?["timeline"] as? [[String]] ?? []).compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
    }

    func timelineBlocking() throws {
        if let missing = BrowserTests.missingTools() {
            Issue.record(Comment(rawValue: missing))
            return
        }
        let (server, _, base, _) = try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate,
                                                              ["--quiet", "--token-lifetime", "40"])
        defer { server.terminate(); server.waitUntilExit() }
        let port = try #require(base.port)
        let foreign = try AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                                channel: "another-channel", user: .uid(42), role: .publisher, tokenExpire: 600,
                                                privilegeExpire: 600)
        let page = "http://127.0.0.1:\(port)/"
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: BrowserTests.python)
        browser.arguments = [BrowserTests.harness.path, "--seconds", "30", "--click", "join",
                             "--done", ##"document.querySelector('#timeline [data-kind="renewed"], #timeline [data-kind="refused"]') !== null"##,
                             "--read", ##"({timeline: [...document.querySelectorAll("#timeline li")].map((li) => [li.dataset.kind, li.textContent]), "##
                                 + ##"injected: document.querySelectorAll("#injected, #timeline b").length})"##,
                             "--page", page, "--fill", "channel=timeline", "--fill", "uid=41",
                             "--page", page, "--fill", "channel=timeline", "--fill", "uid=42", "--fill", "token=\(foreign)",
                             "--page", page, "--fill", "channel=timeline", "--fill", "uid=43",
                             "--fill", "tokenUrl=http://localhost:\(port)/fetch_rtc_token",
                             "--page", page, "--fill", "channel=<b id=injected>", "--fill", "uid=alice",
                             "--fill", "tokenUrl=http://127.0.0.1:\(port)/rtc/{channel}/publisher/{userType}/{user}/",
                             "--page", page, "--fill", "channel=timeline", "--fill", "uid=44",
                             "--fill", "tokenUrl=http://127.0.0.1:\(port)/nothing/{channel}?uid={uid}"]
        let out = Pipe(), err = Pipe()
        (browser.standardOutput, browser.standardError) = (out, err)
        try browser.run()
        let (output, errors) = (WholeOutput(out), WholeOutput(err))
        let pid = browser.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + 150) { kill(pid, SIGKILL) }
        browser.waitUntilExit()
        try #require(browser.terminationStatus == 0, "the browser harness failed: \(errors.text)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(output.text.utf8)) as? [String: Any], "\(output.text)")
        let read = seen["pages"] as? [Any] ?? []
        let pages = read.map(timeline)
        try #require(pages.count == 5, "\(seen)")
        let console = (seen["console"] as? [String] ?? []).joined(separator: "\n")

        // From the server's own token route: fetched (40 s), joined, warned at T−30 s, renewed from the same route.
        let renewing = pages[0]
        let said = renewing.map { "\($0.kind): \($0.text)" }.joined(separator: "\n")
        #expect(renewing.map(\.kind) == ["fetched", "joined", "will-expire", "renewed"], "\(said)\n\(console)")
        #expect(renewing.first?.text.contains("fetched: from http://127.0.0.1:\(port)/fetch_rtc_token: 40 s, ends at ") == true, "\(said)")
        #expect(renewing.dropFirst().first?.text.contains("joined: timeline as uid 41") == true, "\(said)")
        let warning = renewing.dropFirst(2).first?.text ?? ""
        let secondsLeft = warning.components(separatedBy: "T−").dropFirst().first?.components(separatedBy: " s").first.flatMap(Double.init)
        #expect(secondsLeft.map { (28.5...31).contains($0) } == true, "the warning is not 30 s before the end: \(warning)")
        #expect(renewing.last?.text.contains("renewed: from http://127.0.0.1:\(port)/fetch_rtc_token: 40 s") == true, "\(said)")

        // A pasted token for another channel: refused in the SDK's words.
        let refused = pages[1]
        #expect(refused.map(\.kind) == ["pasted", "refused"], "\(refused)")
        #expect(refused.last?.text.contains("refused: the join: AgoraRTCError CAN_NOT_GET_GATEWAY_SERVER: ") == true, "\(refused)")
        #expect(refused.last?.text.contains("CAN_NOT_GET_GATEWAY_SERVER: invalid token, authorized failed") == true, "\(refused)")

        // A token URL on another origin that allows none: the page says the server must allow its origin.
        let cors = pages[2]
        #expect(cors.map(\.kind) == ["refused"], "\(cors)")
        #expect(cors.first?.text.contains("does not allow this page's origin (CORS)") == true, "\(cors)")
        #expect(cors.first?.text.contains("Access-Control-Allow-Origin: http://127.0.0.1:\(port)") == true, "\(cors)")

        // An account, a GET template of placeholders, and a channel named like HTML: escaped in the URL, text on the page.
        let account = pages[3]
        let accountSaid = account.map { "\($0.kind): \($0.text)" }.joined(separator: "\n")
        #expect(account.map(\.kind) == ["fetched", "joined", "will-expire", "renewed"], "\(accountSaid)\n\(console)")
        #expect(account.first?.text.contains("from http://127.0.0.1:\(port)/rtc/%3Cb%20id%3Dinjected%3E/publisher/userAccount/alice/") == true,
                "\(accountSaid)")
        #expect(account.dropFirst().first?.text.contains("joined: <b id=injected> as uid alice") == true, "\(accountSaid)")
        #expect(account.dropFirst(2).first?.text.contains("will-expire: the token ends 30 s from now by the warning (the server did not say when)") == true,
                "a warning without the server's expiresIn claims a measured T−: \(accountSaid)")
        #expect((read[3] as? [String: Any])?["injected"] as? Int == 0, "the channel's name became an element")

        // A token URL that answers 404: the status and the words of the answer's "error".
        let missing = pages[4]
        #expect(missing.map(\.kind) == ["refused"], "\(missing)")
        #expect(missing.first?.text.contains("http://127.0.0.1:\(port)/nothing/timeline answered HTTP 404: no endpoint at /nothing/timeline;") == true,
                "\(missing)")
    }
}
