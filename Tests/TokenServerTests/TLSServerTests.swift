import Foundation
import Sockets
import TestSupport
import Testing
import TLS
import TokenServer
@testable import WebServer
#if canImport(Glibc)
import Glibc
#endif

/// Whether the server closed `fd` within `limit` (it reads to the end, dropping what the server sends first).
func closedByServer(_ fd: Int32, within limit: Duration) -> Bool {
    let deadline = ContinuousClock.now + limit
    var byte = [UInt8](repeating: 0, count: 4096)
    while ContinuousClock.now < deadline {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 50) > 0 else { continue }
        if recv(fd, &byte, byte.count, 0) <= 0 { return true }
    }
    return false
}

@Suite(.serialized) struct TLSServerTests {
    static let certificates = TestCertificates.shared

    static func serve(requestDeadline: Duration = .seconds(10), log: LogLines? = nil,
                      pair: KeyPath<TestCertificates, TestCertificates.Pair> = \.good) throws -> (TokenServer, TestCertificates) {
        let certificates = try certificates.get()
        var config = TokenServerConfig(port: 0, appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                       log: log.map { lines in { @Sendable line in lines.append(line) } })
        config.tls = try TLSContext(certificateFile: certificates[keyPath: pair].certificate, keyFile: certificates[keyPath: pair].key)
        config.requestDeadline = requestDeadline
        return (try TokenServer(config), certificates)
    }

    @Test func itServesHTTPSAndKeepsTheConnectionAlive() throws {
        let (server, certificates) = try Self.serve()
        defer { server.stop() }
        #expect(server.url.absoluteString.hasPrefix("https://127.0.0.1:"))
        let client = try TLSTestClient(port: server.port, caFile: certificates.caFile)
        for _ in 0..<3 {
            let answer = try client.get("/ping")
            #expect(answer?.status == 200 && answer?.body == #"{"message":"pong"}"#)
        }
        #expect(try client.get("/ping", close: true)?.status == 200)
        #expect(closedByServer(client.wire.socket.fd, within: .seconds(5)))
    }

    @Test func theNamesOfItsCertificateAreTheServersOwn() throws {
        let (server, certificates) = try Self.serve(pair: \.otherName)
        defer { server.stop() }
        #expect(server.config.tls?.certificateNames == ["elsewhere.example"])
        let client = try TLSTestClient(port: server.port, caFile: certificates.caFile, name: "elsewhere.example")
        #expect(try client.get("/ping")?.status == 200)
        #expect(try client.get("/ping", host: "Elsewhere.Example.:443")?.status == 200)
        #expect(try client.get("/ping", host: "other.example")?.status == 421)
    }

    @Test func aCertificateOfManyNamesGivesEachWholeAndNoneCutShort() throws {
        let folder = try TemporaryFolder()
        let names = (1...300).map { "DNS:host-\($0)-of-a-long-multi-domain-list.example" }
        let pair = try TestCertificates.selfSigned(names: names.joined(separator: ","), in: folder.path)
        let context = try TLSContext(certificateFile: pair.certificate, keyFile: pair.key)
        #expect(context.certificateNames == names.map { String($0.dropFirst(4)) })
    }

    @Test func aClientThatOpensTLSAndGoesSilentIsClosedAtTheDeadlineWhileOthersAreServed() throws {
        let log = LogLines()
        let (server, certificates) = try Self.serve(requestDeadline: .milliseconds(600), log: log)
        defer { server.stop() }
        // One sends nothing at all; another sends its ClientHello and never answers the server's.
        let mute = try Socket.connect(host: "127.0.0.1", port: server.port, until: .now + .seconds(5))
        defer { mute.close() }
        let hello = Wire(try Socket.connect(host: "127.0.0.1", port: server.port, until: .now + .seconds(5)),
                         tls: try TLSSession(context: try TLSContext.shared(.file(certificates.caFile)), host: "127.0.0.1"))
        defer { hello.socket.close() }
        try hello.start()
        _ = hello.flush()
        let started = ContinuousClock.now
        let other = try TLSTestClient(port: server.port, caFile: certificates.caFile)
        #expect(try other.get("/ping")?.status == 200)
        #expect(ContinuousClock.now - started < .milliseconds(500), "served while two handshakes hang")
        #expect(closedByServer(mute.fd, within: .seconds(5)))
        #expect(closedByServer(hello.socket.fd, within: .seconds(5)))
        #expect(ContinuousClock.now - started >= .milliseconds(550), "kept until the deadline, not refused at once")
        let silent = "127.0.0.1 TLS: handshake refused: the client did not finish it within 0.6 seconds; the connection is closed"
        #expect(log.all.filter { $0 == silent }.count == 2, "each silent client is logged once: \(log.all)")
        #expect(try TLSTestClient(port: server.port, caFile: certificates.caFile).get("/ping")?.status == 200)
    }

    @Test(arguments: [
        Array("GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8),
        [UInt8](repeating: 0x16, count: 3) + [UInt8](repeating: 0xFF, count: 600),
    ])
    func garbageInsteadOfAClientHelloClosesThatConnectionAndTheServerServesOn(_ garbage: [UInt8]) throws {
        let (server, certificates) = try Self.serve()
        defer { server.stop() }
        let socket = try Socket.connect(host: "127.0.0.1", port: server.port, until: .now + .seconds(5))
        defer { socket.close() }
        #expect(socket.send(garbage))
        #expect(closedByServer(socket.fd, within: .seconds(5)))
        #expect(try TLSTestClient(port: server.port, caFile: certificates.caFile).get("/ping")?.status == 200)
        #expect(server.port > 0)
    }

    @Test func certificateFilesAreCheckedAtStartWithWordsForEachProblem() throws {
        let certificates = try Self.certificates.get()
        func failure(_ certificate: String, _ key: String) -> String {
            do {
                _ = try TLSContext(certificateFile: certificate, keyFile: key)
                return "accepted"
            } catch {
                return error.description
            }
        }
        let missing = certificates.directory + "/none.pem"
        #expect(failure(missing, certificates.good.key).contains("the certificate file \(missing) does not exist"))
        #expect(failure(certificates.good.certificate, missing).contains("the private key file \(missing) does not exist"))
        #expect(failure(certificates.good.key, certificates.good.key).contains("holds no PEM certificate"))
        #expect(failure(certificates.good.certificate, certificates.good.certificate).contains("holds no PEM private key"))
        #expect(failure(certificates.good.certificate, certificates.otherName.key)
            .contains("the private key in \(certificates.otherName.key) does not match the certificate in \(certificates.good.certificate)"))
        if geteuid() != 0 {  // root reads any file
            let locked = certificates.directory + "/locked.key"
            try FileManager.default.copyItem(atPath: certificates.good.key, toPath: locked)
            chmod(locked, 0)
            #expect(failure(certificates.good.certificate, locked).contains("cannot be read"))
        }
        #expect(failure(certificates.good.certificate, certificates.good.key) == "accepted")
    }
}
