import AccessToken
import Foundation
import TestSupport
import Testing

/// Issue 36, the page at `/`: in Chromium, a person fills its form and reads the token's life on its timeline — a
/// token from `serve`'s own token route fetched, joined, warned of 30 s before its end and renewed; a pasted token of
/// another channel refused in the SDK's words; a token URL on an origin that does not allow the page's refused in
/// words that name CORS.
@Suite(.serialized) struct BrowserPageTests {
    @Test func theFormsTimelineShowsARenewalARefusalInTheSDKsWordsAndACORSRefusal() async throws {
        try await onOwnThread { try self.timelineBlocking() }
    }

    /// The timeline's lines as (kind, text).
    func timeline(_ page: Any?) -> [(kind: String, text: String)] {
        (page as? [[String]] ?? []).compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
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
                             "--read", ##"[...document.querySelectorAll("#timeline li")].map((li) => [li.dataset.kind, li.textContent])"##,
                             "--page", page, "--fill", "channel=timeline", "--fill", "uid=41",
                             "--page", page, "--fill", "channel=timeline", "--fill", "uid=42", "--fill", "token=\(foreign)",
                             "--page", page, "--fill", "channel=timeline", "--fill", "uid=43",
                             "--fill", "tokenUrl=http://localhost:\(port)/fetch_rtc_token"]
        let out = Pipe(), err = Pipe()
        (browser.standardOutput, browser.standardError) = (out, err)
        try browser.run()
        let (output, errors) = (WholeOutput(out), WholeOutput(err))
        let pid = browser.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + 150) { kill(pid, SIGKILL) }
        browser.waitUntilExit()
        try #require(browser.terminationStatus == 0, "the browser harness failed: \(errors.text)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(output.text.utf8)) as? [String: Any], "\(output.text)")
        let pages = (seen["pages"] as? [Any] ?? []).map(timeline)
        try #require(pages.count == 3, "\(seen)")
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
    }
}
