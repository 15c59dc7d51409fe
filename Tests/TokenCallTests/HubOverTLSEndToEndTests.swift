import Foundation
import TestSupport
import Testing

/// The issue's Done-when for TLS: `join --hub wss://…` processes meeting through `serve --tls-cert … --tls-key …`.
@Suite struct HubOverTLSEndToEndTests {
    static let certificates = Result { try TestCertificates.make() }

    @Test func twoJoinProcessesMeetOverWSSThroughAServeWithACertificate() throws {
        let certificates = try Self.certificates.get()
        let (server, _, base, announced) = try TokenCallProcess.serve(
            appID: TestCredentials.appID, certificate: TestCredentials.certificate,
            ["--quiet", "--tls-cert", certificates.good.certificate, "--tls-key", certificates.good.key])
        defer { server.terminate(); server.waitUntilExit() }
        #expect(base.scheme == "https", "\(announced)")
        #expect(announced.contains("wss://"), "\(announced)")
        let port = try #require(base.port)
        func join(uid: UInt32, duration: Int, environment: [String: String] = [:], _ trust: [String]) throws -> (Process, Pipe, Pipe) {
            try TokenCallProcess.start(["join", "--hub", "wss://127.0.0.1:\(port)/hub", "--channel", "standup", "--uid", "\(uid)",
                                        "--remote-users", "0", "--duration", "\(duration)", "--json",
                                        "--token-url", "https://127.0.0.1:\(port)/fetch_rtc_token"] + trust,
                                       environment: ["PATH": "/usr/bin:/bin"].merging(environment) { $1 })
        }
        let (alice, aliceOut, aliceErr) = try join(uid: 1, duration: 10, ["--ca-file", certificates.caFile])
        var aliceSaw = TokenCallProcess.read(aliceOut, until: #""event": "didJoinChannel""#)
        try #require(aliceSaw.contains(#""event": "didJoinChannel""#),
                     "alice did not get in: \(aliceSaw) \(String(decoding: aliceErr.fileHandleForReading.availableData, as: UTF8.self))")
        // Bob trusts the test CA through SSL_CERT_FILE, as an https:// token request does.
        let (bob, bobOut, _) = try join(uid: 2, duration: 4, environment: ["SSL_CERT_FILE": certificates.caFile], [])
        bob.waitUntilExit()
        alice.waitUntilExit()
        aliceSaw += String(decoding: aliceOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let bobSaw = String(decoding: bobOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(alice.terminationStatus == 0 && bob.terminationStatus == 0)
        for seen in [#""event": "didJoinedOfUid", "uid": 2"#, #""event": "firstRemoteVideoFrame", "uid": 2"#,
                     #""event": "didOfflineOfUid", "uid": 2, "reason": "quit""#] {
            #expect(aliceSaw.contains(seen), "alice did not see \(seen): \(aliceSaw)")
        }
        for seen in [#""event": "didJoinedOfUid", "uid": 1"#, #""event": "firstRemoteVideoFrame", "uid": 1"#] {
            #expect(bobSaw.contains(seen), "bob did not see \(seen): \(bobSaw)")
        }
    }

    @Test func loadRunsItsClientsOverWSSWithTokensOverHTTPS() throws {
        let certificates = try Self.certificates.get()
        let (server, _, base, _) = try TokenCallProcess.serve(
            appID: TestCredentials.appID, certificate: TestCredentials.certificate,
            ["--quiet", "--tls-cert", certificates.good.certificate, "--tls-key", certificates.good.key])
        defer { server.terminate(); server.waitUntilExit() }
        let port = try #require(base.port)
        let result = try TokenCallProcess.run(["load", "--hub", "wss://127.0.0.1:\(port)/hub", "--token-url", base.absoluteString,
                                               "--ca-file", certificates.caFile, "--clients", "4", "--channels", "1",
                                               "--duration", "3", "--fps", "2"])
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("on wss://127.0.0.1:\(port)/hub"), "\(result.stdout)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("join ") && $0.contains(" 4 samples") }, "\(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("videoFanOut ") && !$0.contains("none") }, "\(result.stdout)")
        #expect(result.stdout.contains("errors: none"), "\(result.stdout)")
    }

    @Test func aJoinThatDoesNotTrustTheHubsCertificateSaysSo() throws {
        let certificates = try Self.certificates.get()
        let (server, _, base, _) = try TokenCallProcess.serve(
            appID: TestCredentials.appID, certificate: TestCredentials.certificate,
            ["--quiet", "--tls-cert", certificates.good.certificate, "--tls-key", certificates.good.key])
        defer { server.terminate(); server.waitUntilExit() }
        let port = try #require(base.port)
        let result = try TokenCallProcess.run(["join", "--hub", "wss://127.0.0.1:\(port)/hub", "--headless", "--duration", "2",
                                               "--app-id", TestCredentials.appID, "--app-certificate", TestCredentials.certificate,
                                               "--remote-users", "0"],
                                              environment: ["SSL_CERT_FILE": certificates.directory + "/none.pem"])
        #expect(result.stdout.contains("not trusted") || result.stderr.contains("not trusted"), "\(result.stdout) \(result.stderr)")
    }

    @Test func serveRefusesCertificateFilesThatCannotServeWithWordsForEach() throws {
        let certificates = try Self.certificates.get()
        let missing = certificates.directory + "/missing.pem"
        let cases: [([String], String)] = [
            (["--tls-cert", certificates.good.certificate], "--tls-cert needs --tls-key"),
            (["--tls-key", certificates.good.key], "--tls-key needs --tls-cert"),
            (["--tls-cert", missing, "--tls-key", certificates.good.key], "the certificate file \(missing) does not exist"),
            (["--tls-cert", certificates.good.certificate, "--tls-key", certificates.otherName.key], "does not match the certificate"),
            (["--tls-cert", certificates.good.certificate, "--tls-key", certificates.good.key, "--redis", "redis://127.0.0.1:1",
              "--advertise", "ws://127.0.0.1:8443/hub"], "--advertise must be wss:// with --tls-cert"),
        ]
        for (options, words) in cases {
            let result = try TokenCallProcess.run(["serve", "--port", "0", "--app-id", TestCredentials.appID,
                                                   "--app-certificate", TestCredentials.certificate] + options, limit: .seconds(30))
            #expect(result.status == 64, "\(options)")
            #expect(result.stderr.contains(words), "\(result.stderr)")
            #expect(!result.stderr.contains(TestCredentials.certificate))
        }
    }
}
