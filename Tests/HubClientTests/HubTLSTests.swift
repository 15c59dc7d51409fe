import HubClient
import HubProtocol
import TestSupport
import Testing
import TLS

/// wss://: a hub served over TLS, reached with the same trust as an https:// token server.
@Suite struct HubTLSTests {
    static let certificates = Result { try TestCertificates.make() }

    static func securedHub(_ pair: (TestCertificates) -> TestCertificates.Pair = \.good) throws -> (ServedHub, TestCertificates) {
        let certificates = try certificates.get()
        let chosen = pair(certificates)
        return (try ServedHub(tls: try TLSContext(certificateFile: chosen.certificate, keyFile: chosen.key)), certificates)
    }

    @Test func twoClientsMeetOnAHubOverTLSAndSeeEachOthersVideo() throws {
        let (hub, certificates) = try Self.securedHub()
        #expect(hub.address.description.hasPrefix("wss://"))
        let (alice, aliceLog) = try openConnection(hub.address, trust: .file(certificates.caFile))
        defer { alice.close() }
        let (bob, bobLog) = try openConnection(hub.address, trust: .file(certificates.caFile))
        defer { bob.close() }
        #expect(aliceLog.next() == .connected)
        #expect(bobLog.next() == .connected)
        alice.send(ServedHub.join(1))
        #expect(aliceLog.next()?.notice.map { if case .joined = $0 { true } else { false } } == true)
        bob.send(ServedHub.join(2))
        #expect(bobLog.next()?.notice.map { if case .joined = $0 { true } else { false } } == true)
        #expect(aliceLog.next() == .notice(.userJoined(HubPeer(uid: 2, account: nil))))
        let frame = HubVideoFrame(columns: 2, rows: 1, cells: [.init(red: 9, green: 8, blue: 7), .init(red: 1, green: 2, blue: 3)])!
        bob.sendVideo(frame)
        guard case .video(let received)? = aliceLog.next() else { Issue.record("no video over wss"); return }
        #expect(received.cells == frame.cells)
    }

    @Test func aHubWhoseCertificateIsNotTrustedIsLostWithTheReasonInWords() throws {
        let (hub, _) = try Self.securedHub()
        let (client, log) = try openConnection(hub.address)  // the system's trust: no test CA in it
        defer { client.close() }
        let reason = log.next()?.lostReason
        #expect(reason?.contains("cannot open a TLS connection to \(hub.address)") == true, "\(String(describing: reason))")
        #expect(reason?.contains("not trusted") == true, "\(String(describing: reason))")
    }

    @Test func aHubWhoseCertificateIsForAnotherNameIsLostSayingTheNamesItHas() throws {
        let (hub, certificates) = try Self.securedHub(\.otherName)
        let (client, log) = try openConnection(hub.address, trust: .file(certificates.caFile))
        defer { client.close() }
        let reason = log.next()?.lostReason
        #expect(reason?.contains("not for 127.0.0.1: it names elsewhere.example") == true, "\(String(describing: reason))")
    }

    @Test func wssToAPlainHubSaysItIsNotTLS() throws {
        let hub = try ServedHub()
        let address = try HubAddress(parsing: "wss://127.0.0.1:\(hub.server.port)/hub")
        let (client, log) = try openConnection(address, trust: .file(try Self.certificates.get().caFile))
        defer { client.close() }
        let reason = log.next()?.lostReason
        #expect(reason?.contains("not TLS") == true, "\(String(describing: reason))")
    }
}
