import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing


@Suite struct ServeCommandTests {
    private func launch(_ extra: [String] = []) throws -> (Process, Pipe, URL) {
        try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate, extra)
    }

    @Test func servesTokensAndStopsCleanlyOnSIGTERM() async throws {
        let (process, stderr, base) = try launch()
        var request = URLRequest(url: base.appendingPathComponent("fetch_rtc_token"))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"uid": 7, "channelName": "cli", "role": 1}"#.utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let token = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["token"] as? String)
        #expect(token.hasPrefix("007"))

        let started = ContinuousClock.now
        process.terminate()
        process.waitUntilExit()
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(process.terminationStatus == 0)
        let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains("POST /fetch_rtc_token 200 "))
        #expect(log.contains("stopping"))
        #expect(!log.contains(token) && !log.contains(TestCredentials.certificate))
    }

    @Test func missingCredentialsAreAUsageError() throws {
        let result = try TokenCallProcess.run(["serve", "--port", "0"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("tokencall serve: missing --app-id ID"))
    }

    @Test func badOptionsAreUsageErrors() throws {
        let environment = ["APP_ID": TestCredentials.appID, "APP_CERTIFICATE": TestCredentials.certificate]
        for (arguments, words) in [
            (["serve", "--token-lifetime", "0"], "--token-lifetime must be an integer from 1 to 86400"),
            (["serve", "--port", "70000"], "--port must be an integer from 0 to 65535"),
            (["serve", "--app-certificate", "short"], "the App Certificate must be 32 hex characters"),
            (["serve", "--require-bearer", ""], "--require-bearer needs a credential; it is empty"),
        ] {
            let result = try TokenCallProcess.run(arguments, environment: environment)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.contains(words), "\(result.stderr)")
        }
    }

    @Test func aHostItCannotListenOnIsShownEscaped() throws {
        let result = try TokenCallProcess.run(["serve", "--host", "\u{1B}[2Jnowhere\nlistening on http://0.0.0.0:80"],
                                              environment: ["APP_ID": TestCredentials.appID, "APP_CERTIFICATE": TestCredentials.certificate])
        #expect(result.status == 1)
        #expect(!result.stderr.contains("\u{1B}") && !result.stderr.contains("\nlistening"), "\(result.stderr)")
        #expect(result.stderr.contains(#"host "\u001b[2Jnowhere\u000alistening on http://0.0.0.0:80""#), "\(result.stderr)")
    }

    @Test func aTakenPortFailsWithAHint() throws {
        let (first, _, base) = try launch()
        defer { first.terminate(); first.waitUntilExit() }
        let result = try TokenCallProcess.run(["serve", "--port", String(base.port!)],
                                              environment: ["APP_ID": TestCredentials.appID, "APP_CERTIFICATE": TestCredentials.certificate])
        #expect(result.status == 1)
        #expect(result.stderr.contains("in use"))
        #expect(result.stderr.contains("--port"))
    }
}
