import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif


@Suite struct ServeCommandTests {
    private func launch(_ extra: [String] = [], openFiles: Int? = nil) throws -> (Process, Pipe, URL, String) {
        try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate, extra, openFiles: openFiles)
    }

    @Test func servesTokensAndStopsCleanlyOnSIGTERM() async throws {
        let (process, stderr, base, _) = try launch()
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

    @Test func itAnnouncesTheAddressItListensOn() throws {
        let (process, _, base, line) = try launch(["--host", "localhost"])
        defer { process.terminate(); process.waitUntilExit() }
        #expect(line.hasPrefix("tokencall serve: listening on http://127.0.0.1:\(base.port!) — "), "\(line)")
    }

    @Test func moreConnectionsThanOpenFilesAreClampedAndEveryClientIsAnswered() throws {
        let (process, stderr, base, first) = try launch(["--max-connections", "1000", "--quiet"], openFiles: 128)
        // More clients than the server has descriptors for: each gets an answer, served or 503, none hangs.
        let clients = (0..<150).compactMap { _ in try? LoopbackClient(port: UInt16(base.port!)) }
        #expect(clients.count == 150)
        for client in clients { client.send("GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") }
        var statuses: [String: Int] = [:]
        for client in clients { statuses[client.statusLine(), default: 0] += 1 }
        #expect(statuses == ["HTTP/1.1 200 OK": 64, "HTTP/1.1 503 Service Unavailable": 86], "\(statuses)")
        process.terminate()
        process.waitUntilExit()
        let printed = first + String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed.contains("serving at most 64 connections, not 1000: the process may open 128 files (ulimit -n)"), "\(printed)")
    }

    @Test func misconfiguredItHandsEachCallerTheSameStaleTokenAfterTheFirst() async throws {
        let (process, _, base, line) = try launch(["--misconfigure", "stale", "--quiet"])
        defer { process.terminate(); process.waitUntilExit() }
        #expect(line.contains("then the token it handed out before to each caller on purpose (--misconfigure stale)"), "\(line)")
        var request = URLRequest(url: base.appendingPathComponent("fetch_rtc_token"))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"uid": 7, "channelName": "cli", "role": 1}"#.utf8)
        var tokens: [String] = []
        for _ in 0..<3 {
            let (data, _) = try await URLSession.shared.data(for: request)
            tokens.append(try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["token"] as? String))
        }
        #expect(Set(tokens).count == 1, "the first token, again and again")
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
            (["serve", "--misconfigure", "late"], "--misconfigure must be wrong-uid, wrong-channel, wrong-app, stale or expired"),
            (["serve", "--allowed-host", "tokens.example.com,https://evil.example"],
             #"--allowed-host takes names such as tokens.example.com (or *.example.com), comma-separated, without a scheme or port; "#
             + #"https://evil.example is not one"#),
        ] {
            let result = try TokenCallProcess.run(arguments, environment: environment)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.contains(words), "\(result.stderr)")
        }
    }

    @Test func itAnswersTheNamesItIsGivenAndRefusesOthersWith421() throws {
        let (process, _, stderr) = try TokenCallProcess.start(
            ["serve", "--port", "0", "--quiet", "--allowed-host", "tokens.example.com, *.farm.example",
             "--redis", "redis://127.0.0.1:1", "--advertise", "ws://hub7.example:8082/hub"],
            environment: ["APP_ID": TestCredentials.appID, "APP_CERTIFICATE": TestCredentials.certificate, "PATH": "/usr/bin:/bin"])
        defer { process.terminate(); process.waitUntilExit() }
        let start = TokenCallProcess.read(stderr, until: " — tokens for App ID")
        let address = try #require(start.firstRange(of: "listening on http://127.0.0.1:"), "\(start)")
        let port = try #require(UInt16(start[address.upperBound...].prefix { $0.isNumber }))
        for (host, status) in [("tokens.example.com", "200 OK"), ("a.farm.example:8080", "200 OK"), ("hub7.example:8082", "200 OK"),
                               ("localhost:\(port)", "200 OK"), ("evil.example:\(port)", "421 Misdirected Request")] {
            let client = try LoopbackClient(port: port)
            client.send("GET /ping HTTP/1.1\r\nHost: \(host)\r\n\r\n")
            #expect(client.statusLine() == "HTTP/1.1 \(status)", "\(host)")
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
        let (first, _, base, _) = try launch()
        defer { first.terminate(); first.waitUntilExit() }
        let result = try TokenCallProcess.run(["serve", "--port", String(base.port!)],
                                              environment: ["APP_ID": TestCredentials.appID, "APP_CERTIFICATE": TestCredentials.certificate])
        #expect(result.status == 1)
        #expect(result.stderr.contains("in use"))
        #expect(result.stderr.contains("--port"))
    }
}

/// A raw TCP client on 127.0.0.1 that reads the status line of one answer (within 5 s).
private final class LoopbackClient {
    let fd: Int32

    init(port: UInt16) throws {
        guard let fd = Loopback.connect(port: port, readTimeout: 5) else { throw POSIXError(.ECONNREFUSED) }
        self.fd = fd
    }

    deinit { close(fd) }

    func send(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The answer's first line; empty when none came.
    func statusLine() -> String {
        var seen: [UInt8] = []
        var byte: UInt8 = 0
        while !seen.starts(with: Array("HTTP/1.1 ".utf8)) || seen.last != UInt8(ascii: "\n") {
            guard recv(fd, &byte, 1, 0) == 1 else { break }
            seen.append(byte)
        }
        return String(decoding: seen, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
