import Sockets
import TestSupport
import Testing
import TLS
import TokenServer
@testable import WebServer

/// A client's session and a server's, each handed what the other sends, in memory.
private struct SessionPair {
    let client: TLSSession
    let server: TLSSession

    init(trust: TLSTrust, host: String = "127.0.0.1") throws {
        let certificates = try TLSServerTests.certificates.get()
        client = try TLSSession(context: try TLSContext.shared(trust), host: host)
        server = try TLSSession(serving: try TLSContext(certificateFile: certificates.good.certificate, keyFile: certificates.good.key))
    }

    /// Runs both handshakes until neither has anything more to send: how each ended, true when it finished.
    func handshake() -> (client: Result<Bool, TLSFailure>, server: Result<Bool, TLSFailure>) {
        var client = Result<Bool, TLSFailure>.success(false), server = client
        for _ in 0..<10 {
            client = step(self.client, after: client, to: self.server)
            server = step(self.server, after: server, to: self.client)
            if case .success(false) = client { continue }
            if case .success(false) = server { continue }
            break
        }
        return (client, server)
    }

    private func step(_ session: TLSSession, after last: Result<Bool, TLSFailure>, to other: TLSSession) -> Result<Bool, TLSFailure> {
        guard case .success(false) = last else { return last }
        let result = Result { () throws(TLSFailure) in try session.handshake() }
        other.received(session.takeOutgoing()[...])
        return result
    }
}

/// The failure `session` ends its handshake with once `bytes` arrive, then the close; nil if it finished.
private func failure(of session: TLSSession, after bytes: [UInt8]) -> TLSFailure? {
    do throws(TLSFailure) {
        _ = try session.handshake()
        session.received(bytes[...])
        if try session.handshake() { return nil }
        session.receivedEnd()
        if try session.handshake() { return nil }
        return .setup("the session still waits after the close")
    } catch {
        return error
    }
}

/// Our client's ClientHello capped at TLS 1.2, from the tlsserver fuzz target's seeds (Fuzz/TLSServerFuzzer.swift):
/// after it, a server reads a client's alerts in plaintext.
private let helloTLS12 = hexBytes([
    "16030100c9010000c503037192ab731a8cba84805aa3d38568e5758b1c684ccca30131a6d5d257fee266ce000038c02cc030009f",
    "cca9cca8ccaac02bc02f009ec024c028006bc023c0270067c00ac0140039c009c0130033009d009c003d003c0035002f00ff0100",
    "00640000000e000c0000096c6f63616c686f7374000b000403000102000a000c000a001d0017001e001900180023000000160000",
    "00170000000d002a0028040305030603080708080809080a080b080408050806040105010601030303010302040205020602",
].joined())

private func hexBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
}

@Suite struct TLSPeerWordsTests {
    @Test func aPairOverMemoryFinishesItsHandshakeAndCarriesARequestAndItsAnswer() throws {
        let pair = try SessionPair(trust: .file(try TLSServerTests.certificates.get().caFile))
        let (client, server) = pair.handshake()
        #expect(client == .success(true) && server == .success(true))
        try pair.client.write(Array("GET /ping".utf8))
        pair.server.received(pair.client.takeOutgoing()[...])
        var request: [UInt8] = []
        #expect(try pair.server.read(into: &request) == false)
        #expect(request == Array("GET /ping".utf8))
        #expect(pair.client.peer == .server && pair.server.peer == .client)
    }

    @Test func aMessageOfManyRecordsInOddPiecesReadsBackWholeThenTheCloseEndsIt() throws {
        let pair = try SessionPair(trust: .file(try TLSServerTests.certificates.get().caFile))
        let (client, server) = pair.handshake()
        #expect(client == .success(true) && server == .success(true))
        let message = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try pair.client.write(message)
        pair.client.close()
        let ciphertext = pair.client.takeOutgoing()
        var request: [UInt8] = [], ended = false, offset = 0, piece = 1
        while offset < ciphertext.count {
            let end = min(offset + piece, ciphertext.count)
            pair.server.received(ciphertext[offset..<end])
            ended = try pair.server.read(into: &request)
            (offset, piece) = (end, piece * 3 % 7919 + 1)
        }
        #expect(request == message)
        #expect(ended, "the close_notify after the last record ends the stream")
    }

    @Test func aClientSideReplayedToANewServerIsRefusedAtItsFinished() throws {
        let pair = try SessionPair(trust: .file(try TLSServerTests.certificates.get().caFile))
        var sent: [UInt8] = []
        var client = false, server = false
        for _ in 0..<10 where !(client && server) {
            if !client { client = try pair.client.handshake() }
            let flight = pair.client.takeOutgoing()
            sent += flight
            pair.server.received(flight[...])
            if !server { server = try pair.server.handshake() }
            pair.client.received(pair.server.takeOutgoing()[...])
        }
        #expect(client && server)
        let replayed = failure(of: try SessionPair(trust: .system).server, after: sent)
        #expect(replayed == .handshakeRefused("decryption failed or bad record mac"), "a new server's random and key share make it stale")
    }

    @Test func aServerSessionNamesTheClientWhenTheClientRefusesItsCertificate() throws {
        let pair = try SessionPair(trust: .system)
        let (client, server) = pair.handshake()
        guard case .failure(.untrustedIssuer) = client else { Issue.record("the client: \(client)"); return }
        #expect(server == .failure(.handshakeRefused("the client sent the alert \"tlsv1 alert unknown ca\"")))
        #expect(String(describing: server).contains("the server") == false)
    }

    @Test func aServerSessionNamesTheClientWhenItClosesDuringTheHandshake() throws {
        let pair = try SessionPair(trust: .system)
        #expect(try pair.client.handshake() == false)
        let hello = pair.client.takeOutgoing()
        for cut in [0, 5, hello.count] {
            let server = try SessionPair(trust: .system).server
            let failed = failure(of: server, after: Array(hello.prefix(cut)))
            #expect(failed?.description == "TLS: handshake refused: the client closed the connection during the handshake", "cut at \(cut)")
        }
    }

    // Two of the tlsserver fuzz target's findings, and a named alert beside them: a close_notify in the handshake was
    // "OpenSSL stopped during the handshake (error 6)", an alert OpenSSL has no name for was the alert "error 1255".
    @Test(arguments: [
        ([0x15, 0x03, 0x03, 0x00, 0x02, 0x01, 0x00], "the client closed the connection during the handshake"),
        ([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0xFF], "the client sent alert 255, which OpenSSL has no name for"),
        ([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x30], "the client sent the alert \"tlsv1 alert unknown ca\""),
    ] as [([UInt8], String)])
    func aClientsAlertAfterItsHelloIsRefusedInWords(_ alert: [UInt8], _ words: String) throws {
        let server = try SessionPair(trust: .system).server
        #expect(failure(of: server, after: helloTLS12 + alert) == .handshakeRefused(words))
    }

    /// Well-formed TLS in the wrong place is TLS: the words say so rather than asking about http://.
    @Test(arguments: [
        [0x14, 0x03, 0x03, 0x00, 0x01, 0x01],  // a change_cipher_spec before any hello
        [0x17, 0x03, 0x03, 0x00, 0x05, 0x68, 0x65, 0x6C, 0x6C, 0x6F],  // application data before any hello
        [0x16, 0x03, 0x03, 0x00, 0x04, 0x02, 0x00, 0x00, 0x00],  // a ServerHello sent to a server
    ] as [[UInt8]])
    func aValidRecordOutOfOrderIsRefusedAsOutOfOrderNotAsNotTLS(_ record: [UInt8]) throws {
        let server = try SessionPair(trust: .system).server
        let failed = try #require(failure(of: server, after: record))
        guard case .handshakeRefused(let words) = failed else { Issue.record("\(failed)"); return }
        #expect(words.hasPrefix("the client sent a TLS message out of order ("), "\(words)")
    }

    @Test func aServerSessionSaysAPlainHTTPRequestIsNotTLSFromTheClient() throws {
        let server = try SessionPair(trust: .system).server
        let failed = try #require(failure(of: server, after: Array("GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)))
        #expect(failed == .notTLS("http request", from: .client))
        #expect(failed.description == "TLS: what the client sent is not TLS (http request); did it ask for http:// instead of https://?")
    }

    @Test func aClientSessionKeepsItsWordsForTheServer() throws {
        let plain = try SessionPair(trust: .system).client
        let answer = try #require(failure(of: plain, after: Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8)))
        guard case .notTLS(let why, from: .server) = answer else { Issue.record("\(answer)"); return }
        #expect(answer.description == "TLS: the server's answer is not TLS (\(why)); is it an http:// server?")
        let closing = try SessionPair(trust: .system).client
        #expect(failure(of: closing, after: [])?.description == "TLS: handshake refused: the server closed the connection during the handshake")
    }

    @Test func serveLogsARefusedHandshakeOnOneLineWithTheClientsAddress() async throws {
        let certificates = try TLSServerTests.certificates.get()
        let log = LogLines()
        var config = TokenServerConfig(port: 0, appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                       log: { @Sendable line in log.append(line) })
        config.tls = try TLSContext(certificateFile: certificates.good.certificate, keyFile: certificates.good.key)
        let server = try TokenServer(config)
        defer { server.stop() }
        let plain = try Socket.connect(host: "127.0.0.1", port: server.port, until: .now + .seconds(5))
        defer { plain.close() }
        #expect(plain.send(Array("GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)))
        #expect(closedByServer(plain.fd, within: .seconds(5)))
        let hello = Wire(try Socket.connect(host: "127.0.0.1", port: server.port, until: .now + .seconds(5)),
                         tls: try TLSSession(context: try TLSContext.shared(.file(certificates.caFile)), host: "127.0.0.1"))
        try hello.start()
        _ = hello.flush()
        hello.socket.close()
        #expect(try TLSTestClient(port: server.port, caFile: certificates.caFile).get("/ping")?.status == 200)
        let deadline = ContinuousClock.now + .seconds(5)
        while log.all.count < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let lines = log.all
        #expect(lines.contains("127.0.0.1 TLS: what the client sent is not TLS (http request); did it ask for http:// instead of https://?"), "\(lines)")
        #expect(lines.contains("127.0.0.1 TLS: handshake refused: the client closed the connection during the handshake"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("GET /ping 200 ") }, "\(lines)")
        #expect(lines.count == 3, "\(lines)")
    }
}
