import TLS
import CCrypto
import Foundation
import HTTP1
import TestSupport
import Synchronization
import Testing
@testable import TokenClient

/// https:// token requests in process (OpenSSL over memory BIOs), against a test CA's server and hostile ones.
@Suite struct TLSTransportTests {
    static let certificates = Result { try TestCertificates.make() }

    static func transport(_ trust: TLSTrust, limit: Duration = LoopHTTPTransportTests.transportLimit) -> LoopHTTPTransport {
        LoopHTTPTransport(userAgent: "tokencall/test", limit: limit, trust: trust, idleLimit: KeepAliveTests.longIdle)
    }

    static func failure(_ url: URL, _ transport: LoopHTTPTransport) async -> TokenClientError? {
        do {
            _ = try await transport.send(LoopHTTPTransportTests.post(url), bodyLimit: HTTPTokenProvider.bodyLimit)
            return nil
        } catch {
            return error as? TokenClientError
        }
    }

    static func server(_ pair: TestCertificates.Pair, maxVersion: Int32? = nil) throws -> TLSTestServer {
        try TLSTestServer(pair, maxVersion: maxVersion) { _ in head("200 OK", ["Content-Length: 2"]) + "{}" }
    }

    @Test func aServerOfTheGivenCAIsReachedWithTheRequestAsAsked() async throws {
        let certificates = try Self.certificates.get()
        let server = try Self.server(certificates.good)
        defer { server.stop() }
        let (reply, _) = try await Self.transport(.file(certificates.caFile))
            .send(LoopHTTPTransportTests.post(server.url()), bodyLimit: 100)
        #expect(reply.status == 200)
        #expect(reply.body == Array("{}".utf8))
        let request = try #require(server.requests.first)
        #expect(request.hasPrefix("POST /fetch_rtc_token?x=1 HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"))
        #expect(request.hasSuffix("\r\n\r\n{\"uid\":1}"))
    }

    @Test func twoFetchesShareOneConnectionAndOneHandshake() async throws {
        let certificates = try Self.certificates.get()
        let server = try TLSTestServer(certificates.good, keepsConnections: true) { _ in keptAnswer() }
        defer { server.stop() }
        let transport = Self.transport(.file(certificates.caFile))
        for _ in 0..<2 { _ = try await transport.send(LoopHTTPTransportTests.post(server.url()), bodyLimit: 100) }
        #expect(server.requests.count == 2)
        #expect(server.serverNames.count == 1, "one handshake for both")
    }

    @Test func aRedirectFromHttpsToHttpOnTheSameHostAndPortIsNotFollowed() async throws {
        let certificates = try Self.certificates.get()
        let port = Mutex<UInt16>(0)
        let server = try TLSTestServer(certificates.good) { _ in
            head("307 Temporary Redirect", ["Location: http://127.0.0.1:\(port.withLock { $0 })/fetch_rtc_token", "Content-Length: 0"])
        }
        defer { server.stop() }
        port.withLock { $0 = server.port }
        var request = LoopHTTPTransportTests.post(server.url())
        request.fields.set("Authorization", "Bearer user-cred")
        do {
            _ = try await Self.transport(.file(certificates.caFile)).send(request, bodyLimit: 100)
            Issue.record("the redirect to http:// was followed")
        } catch let error as TokenClientError {
            #expect(error.description.contains("to another origin, http://127.0.0.1:\(server.port); tokencall sends requests, and the --auth-bearer credential, only to"),
                    "\(error)")
        }
        #expect(server.requests.count == 1, "one request, over TLS")
    }

    @Test func aNameIsSentAndCheckedAgainstTheCertificatesNames() async throws {
        let certificates = try Self.certificates.get()
        let server = try Self.server(certificates.good)
        defer { server.stop() }
        let (reply, _) = try await Self.transport(.file(certificates.caFile))
            .send(LoopHTTPTransportTests.post(server.url(host: "localhost")), bodyLimit: 100)
        #expect(reply.status == 200)
        _ = try await Self.transport(.file(certificates.caFile)).send(LoopHTTPTransportTests.post(server.url()), bodyLimit: 100)
        #expect(server.serverNames == ["localhost", ""], "a name is sent (SNI), an address is not")
    }

    @Test func anIssuerOutsideTheTrustIsNamed() async throws {
        let certificates = try Self.certificates.get()
        let server = try Self.server(certificates.good)
        defer { server.stop() }
        let error = await Self.failure(server.url(), Self.transport(.system))
        #expect(error == .transport(TLSFailure.untrustedIssuer(issuer: "/CN=TokenCall Test CA").description))
        #expect(error?.description.contains("is not trusted; give its CA certificate with --ca-file FILE") == true)
        #expect(server.requests.isEmpty)
    }

    @Test func aSelfSignedCertificateIsRefusedInWords() async throws {
        let certificates = try Self.certificates.get()
        let server = try Self.server(certificates.selfSigned)
        defer { server.stop() }
        let error = await Self.failure(server.url(), Self.transport(.file(certificates.caFile)))
        #expect(error == .transport("TLS: the certificate (/CN=self-signed) is self-signed and not trusted; "
            + "give it with --ca-file FILE if you mean to trust it"))
    }

    @Test func aCertificateForAnotherNameSaysWhichNamesItHas() async throws {
        let certificates = try Self.certificates.get()
        let server = try Self.server(certificates.otherName)
        defer { server.stop() }
        let error = await Self.failure(server.url(), Self.transport(.file(certificates.caFile)))
        #expect(error == .transport("TLS: the certificate is not for 127.0.0.1: it names elsewhere.example"))
        let named = await Self.failure(server.url(host: "localhost"), Self.transport(.file(certificates.caFile)))
        #expect(named == .transport("TLS: the certificate is not for localhost: it names elsewhere.example"))
        #expect(server.requests.isEmpty)
    }

    @Test func anExpiredCertificateSaysWhenItExpired() async throws {
        let certificates = try Self.certificates.get()
        let server = try Self.server(certificates.expired)
        defer { server.stop() }
        let error = await Self.failure(server.url(), Self.transport(.file(certificates.caFile)))
        let text = try #require(error?.description)
        let prefix = "cannot reach the token server: TLS: the certificate (/CN=expired) expired on "
        #expect(text.hasPrefix(prefix) && text.hasSuffix(" UTC"), "\(text)")
        let stamp = String(text.dropFirst(prefix.count).dropLast(" UTC".count))
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let expiry = try #require(format.date(from: stamp), "\(stamp)")
        // TestCertificates ends it a day and a half before it was made, which was within this run.
        let ago = -expiry.timeIntervalSinceNow
        #expect(ago >= 129_600 && ago < 129_600 + 1_800, "expired \(ago) s ago: \(text)")
    }

    @Test func aServerBelowTLS12IsRefusedForItsVersion() async throws {
        let certificates = try Self.certificates.get()
        let server = try Self.server(certificates.good, maxVersion: Int32(TLS1_1_VERSION))
        defer { server.stop() }
        let error = await Self.failure(server.url(), Self.transport(.file(certificates.caFile)))
        #expect(error?.description.contains("TLS: no TLS version in common (tokencall needs TLS 1.2 or later)") == true, "\(String(describing: error))")
    }

    @Test func aServerThatNeverFinishesTheHandshakeMeetsTheDeadline() async throws {
        let silent = try HostileServer { $0.waitForClose(upTo: .seconds(30)) }
        defer { silent.stop() }
        let url = URL(string: "https://127.0.0.1:\(silent.port)")!
        let error = await Self.failure(url, Self.transport(.system, limit: .seconds(1)))
        #expect(error == .timeout(.seconds(1)))
    }

    @Test func garbageAfterTheClientHelloIsNotTLS() async throws {
        let garbage = try HostileServer { $0.write(head("400 Bad Request") + String(repeating: "x", count: 300)) }
        defer { garbage.stop() }
        let url = URL(string: "https://127.0.0.1:\(garbage.port)")!
        let error = await Self.failure(url, Self.transport(.system))
        let text = try #require(error?.description)
        #expect(text.hasPrefix("cannot reach the token server: TLS: the server's answer is not TLS ("), "\(text)")
        #expect(text.hasSuffix("); is it an http:// server?"))
    }

    @Test func aServerThatClosesDuringTheHandshakeRefusedIt() async throws {
        let closing = try HostileServer { _ in }
        defer { closing.stop() }
        let url = URL(string: "https://127.0.0.1:\(closing.port)")!
        let error = await Self.failure(url, Self.transport(.system))
        #expect(error == .transport("TLS: handshake refused: the server closed the connection during the handshake"))
    }

    @Test func anUnreadableCAFileIsSaidSo() async throws {
        let error = await Self.failure(URL(string: "https://127.0.0.1:9/")!, Self.transport(.file("/nonexistent/ca.pem")))
        #expect(error?.description.contains("cannot read CA certificates from /nonexistent/ca.pem") == true)
    }
}
