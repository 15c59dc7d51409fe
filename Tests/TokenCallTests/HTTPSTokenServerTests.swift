import Foundation
import TestSupport
import Testing

/// `join`, `doctor` and `load` reach an https:// token server (a test CA's, in front of `tokencall serve`) in process.
@Suite struct HTTPSTokenServerTests {
    static let certificates = Result { try TestCertificates.make() }

    /// `tokencall serve` behind a TLS front with `pair`; the front's URL for the served path.
    static func secureServe(_ pair: (TestCertificates) -> TestCertificates.Pair, _ extra: [String] = [])
        throws -> (Process, TLSTestServer, URL, TestCertificates) {
        let certificates = try certificates.get()
        let (server, _, url, _) = try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate,
                                                             ["--quiet"] + extra)
        let front = try TLSTestServer(pair(certificates), answer: TLSTestServer.forwarding(to: UInt16(url.port!)))
        return (server, front, URL(string: "https://127.0.0.1:\(front.port)\(url.path)")!, certificates)
    }

    @Test func joinGetsItsTokenOverHTTPSWithTheGivenCA() throws {
        let (server, front, url, certificates) = try Self.secureServe(\.good)
        defer { server.terminate(); server.waitUntilExit(); front.stop() }
        let result = try TokenCallProcess.run(["join", "--headless", "--duration", "1", "--token-url", url.absoluteString,
                                               "--ca-file", certificates.caFile, "--app-id", TestCredentials.appID,
                                               "--app-certificate", TestCredentials.certificate], limit: .seconds(30))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("] connectionStateChanged state=connected reason=joinSuccess"), "\(result.stdout)")
        #expect(!front.requests.isEmpty)
    }

    @Test func joinTrustsTheCAThatSSLCertFileNames() throws {
        let (server, front, url, certificates) = try Self.secureServe(\.good)
        defer { server.terminate(); server.waitUntilExit(); front.stop() }
        let result = try TokenCallProcess.run(["join", "--headless", "--duration", "1", "--token-url", url.absoluteString,
                                               "--app-id", TestCredentials.appID, "--app-certificate", TestCredentials.certificate],
                                              environment: ["SSL_CERT_FILE": certificates.caFile], limit: .seconds(30))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("] connectionStateChanged state=connected reason=joinSuccess"), "\(result.stdout)")
    }

    @Test func joinSaysWhyItDoesNotTrustTheServer() throws {
        let (server, front, url, _) = try Self.secureServe(\.good)
        defer { server.terminate(); server.waitUntilExit(); front.stop() }
        // Watched until it says so, not for a `--duration` of call: on a busy machine its first TLS handshake can take
        // longer than a short call lasts. It retries without end (a certificate may be mended), so it is then stopped.
        let (join, out, _) = try TokenCallProcess.start(["join", "--headless", "--token-url", url.absoluteString,
                                                         "--app-id", TestCredentials.appID, "--app-certificate", TestCredentials.certificate],
                                                        environment: ["PATH": "/usr/bin:/bin"])
        let pid = join.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { kill(pid, SIGKILL) }
        let words = "TLS: the certificate's issuer /CN=TokenCall Test CA is not trusted; give its CA certificate with --ca-file FILE"
        let output = TokenCallProcess.read(out, until: words)
        join.terminate()
        join.waitUntilExit()
        #expect(output.contains("] tokenFetchFailed ") && output.contains(words), "\(output)")
        #expect(front.requests.isEmpty)
    }

    @Test func joinRefusesACAFileItCannotRead() throws {
        let result = try TokenCallProcess.run(["join", "--headless", "--duration", "1", "--token-url", "https://127.0.0.1:1/",
                                               "--ca-file", "/nonexistent/ca.pem"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--ca-file /nonexistent/ca.pem cannot be read; give a PEM file of CA certificates"), "\(result.stderr)")
    }

    @Test func doctorChecksAnHTTPSServer() throws {
        let (server, front, url, certificates) = try Self.secureServe(\.good)
        defer { server.terminate(); server.waitUntilExit(); front.stop() }
        let result = try TokenCallProcess.run(["doctor", url.absoluteString, "--uid", "42", "--channel", "room", "--ca-file", certificates.caFile,
                                               "--request-timeout", "60", "--latency-limit", "60000"],
                                              environment: ["APP_ID": TestCredentials.appID, "APP_CERTIFICATE": TestCredentials.certificate])
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("ok   reachable: HTTP 200 in ") == true, "\(result.stdout)\(result.stderr)")
        #expect(lines.contains("ok   audience: for App ID \(TestCredentials.appID), channel \"room\", uid 42, publisher"), "\(result.stdout)")
        #expect(!front.requests.isEmpty)
    }

    @Test func loadFetchesEveryTokenOverHTTPS() throws {
        let (server, front, url, certificates) = try Self.secureServe(\.good)
        defer { server.terminate(); server.waitUntilExit(); front.stop() }
        let result = try TokenCallProcess.run(["load", "--no-hub", "--token-url", url.absoluteString, "--ca-file", certificates.caFile,
                                               "--clients", "5"], limit: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(front.requests.count >= 10, "a fetch and a renewal each")
    }
}
