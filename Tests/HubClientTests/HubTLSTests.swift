import HubClient
import HubProtocol
import HubServer
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

    @Test func aRedirectFromWssToWsIsRefusedInWordsAndNoByteReachesTheWsAddress() throws {
        // Where the redirect points: a "hub" that would accept the WebSocket and read the join, token and all.
        let plain = try HostileServer { connection in
            connection.acceptWebSocket()
            _ = connection.read(upTo: .seconds(2))
        }
        defer { plain.stop() }
        let certificates = try Self.certificates.get()
        let hub = try ServedHub(tls: try TLSContext(certificateFile: certificates.good.certificate, keyFile: certificates.good.key),
                                leases: ElsewhereLeases(owner: "ws://127.0.0.1:\(plain.port)/hub"))
        let named = hub.address.routed(to: "room")
        let (client, log) = try openConnection(named, trust: .file(certificates.caFile))
        defer { client.close() }
        for _ in 0..<2 {
            #expect(log.next() == .connected)
            client.send(ServedHub.join(1))  // as the engine does on each connection
            let reason = log.next()?.lostReason
            #expect(reason?.hasPrefix("\(named) closed the connection with 4302") == true, "every try goes to the hub the user named")
            #expect(reason?.hasSuffix("ws://127.0.0.1:\(plain.port)/hub is not followed: from a wss:// hub a redirect goes only to "
                                      + "wss://, or the token would cross the network unencrypted; the next try is to \(named) again") == true,
                    "\(reason ?? "no loss")")
        }
        #expect(plain.requests.isEmpty, "nothing reached the ws:// address: \(plain.requests)")
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
