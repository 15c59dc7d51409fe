import Dispatch
import Foundation
@testable import HubClient
import Sockets
import Synchronization
import HubProtocol
import TestSupport
import Testing
import TokenServer
import WebServer
import WebSocket

@Suite struct HubConnectionTests {
    /// A connection that has connected, sent a join for `uid` and read the answer.
    private func member(_ hub: ServedHub, uid: UInt32, timing: HubTiming = .fast) throws -> (HubConnection, EventLog, HubNotice?) {
        let (connection, log) = try openConnection(hub.address, timing: timing)
        #expect(log.next() == .connected)
        connection.send(ServedHub.join(uid))
        return (connection, log, log.next()?.notice)
    }

    @Test func aValidTokenJoinsAndTheHubAnswersJoined() throws {
        let hub = try ServedHub()
        let (alice, _, answer) = try member(hub, uid: 1)
        defer { alice.close() }
        guard case .joined(let channel, let uid, let role, _, let users)? = answer else { Issue.record("no joined"); return }
        #expect((channel, uid, role, users) == ("room", 1, .broadcaster, []))
    }

    @Test func twoConnectionsSeeEachOtherComeAndGoAndSeeEachOthersVideo() throws {
        let hub = try ServedHub()
        let (alice, aliceLog, _) = try member(hub, uid: 1)
        defer { alice.close() }
        let (bob, _, bobAnswer) = try member(hub, uid: 2)
        guard case .joined(_, _, _, _, let present)? = bobAnswer else { Issue.record("bob not joined"); return }
        #expect(present == [HubPeer(uid: 1, account: nil)])
        #expect(aliceLog.next() == .notice(.userJoined(HubPeer(uid: 2, account: nil))))

        let frame = HubVideoFrame(columns: 2, rows: 1, cells: [.init(red: 9, green: 8, blue: 7), .init(red: 1, green: 2, blue: 3)])!
        bob.sendVideo(frame)
        var stamped = frame
        stamped.uid = 2
        #expect(aliceLog.next() == .video(stamped))

        bob.close()
        #expect(aliceLog.next() == .notice(.userOffline(uid: 2, reason: .quit)))
    }

    @Test func aTokenForAnotherChannelIsRefusedWithAgorasReason() throws {
        let hub = try ServedHub()
        let (intruder, log) = try openConnection(hub.address)
        defer { intruder.close() }
        #expect(log.next() == .connected)
        intruder.send(ServedHub.join(9, channel: "room", token: ServedHub.token(channel: "other", uid: 9)))
        guard case .connectionStateChanged(_, let reason, let error)? = log.next()?.notice else { Issue.record("not refused"); return }
        #expect(reason == .reasonInvalidToken)
        #expect(error == .invalidToken)
    }

    @Test func aHubRestartIsLostThenConnectedAgainOnItsOwn() throws {
        let hub = try ServedHub()
        let (client, log) = try openConnection(hub.address)
        defer { client.close() }
        #expect(log.next() == .connected)
        try hub.restart()
        let lost = log.next()
        #expect(lost?.lostReason?.contains("closed the connection") == true)
        var event = log.next()
        while event?.lostReason != nil { event = log.next() }  // tries while the port was closed
        #expect(event == .connected)
        client.send(ServedHub.join(3))
        #expect(log.next()?.notice.map { if case .joined = $0 { true } else { false } } == true)
    }

    @Test func aHubThatStopsSaysSoWith1001AndTheClientTriesAgainAtOnce() throws {
        let hub = try ServedHub()
        var timing = HubTiming.standard
        timing.firstBackoff = .seconds(4)  // the usual first wait, 2-4 s: far from the prompt one on a loaded machine
        let (client, log) = try openConnection(hub.address, timing: timing)
        defer { client.close() }
        #expect(log.next() == .connected)
        hub.stop()
        let goodbye = log.next()?.lostReason
        let said = ContinuousClock.now
        #expect(goodbye?.contains("closed the connection with 1001") == true, "\(goodbye ?? "nothing")")
        // Nobody listens now: the next try is refused, within the prompt reconnect's 50 ms rather than the usual
        // backoff's 2-4 s.
        #expect(log.next()?.lostReason?.contains("cannot connect") == true)
        #expect(ContinuousClock.now - said < .seconds(1))
    }

    @Test func aRedirectIsFollowedAtOnceWithTheSameQueryAndOnlyForOneTry() throws {
        let owner = try ServedHub()
        let address = try HubAddress(parsing: "ws://127.0.0.1:1/hub?channel=room")
        #expect(try address.redirected(to: owner.address).description == "ws://127.0.0.1:\(owner.server.port)/hub?channel=room")
        #expect(address.routed(to: "other") == address, "a URL naming its channel keeps it")
        #expect(try HubAddress(parsing: "ws://h:1/hub").routed(to: "a b").target == "/hub", "a name a URL would escape is not routed")
        #expect(try HubAddress(parsing: "ws://h:1/hub?x=1").routed(to: "standup").target == "/hub?x=1&channel=standup")
    }

    @Test func silentPastTheHubsLimitIsDroppedForTheOthersAndReconnectsWhenRestored() throws {
        let hub = try ServedHub(limits: WebSocketLimits(silenceLimit: .milliseconds(300)))
        var timing = HubTiming.fast
        timing.pingInterval = .milliseconds(50)
        let (quiet, quietLog, _) = try member(hub, uid: 1, timing: timing)
        let (other, otherLog, _) = try member(hub, uid: 2, timing: timing)
        defer { quiet.close(); other.close() }
        quiet.setSilent(true)
        // The one still pinging stays; the silent one is dropped, as Agora drops a user without packets, and the
        // others are told how long it was silent.
        #expect(otherLog.next() == .notice(.userOffline(uid: 1, reason: .dropped, silence: .milliseconds(300))))
        quiet.setSilent(false)
        var event = quietLog.next()
        while event?.notice != nil { event = quietLog.next() }  // what the hub said before it dropped the connection
        #expect(event?.lostReason?.contains("closed the connection") == true)
        #expect(quietLog.next() == .connected)
    }
}

@Suite struct HostileHubTests {
    /// A "hub" that reads the handshake and answers with `answer(key)`, then waits for the client to leave.
    private func lostReason(_ answer: @escaping @Sendable (String) -> [UInt8], timing: HubTiming = .fast) throws -> String? {
        let server = try HostileServer { connection in
            connection.write(answer(Self.key(of: connection)))
            connection.waitForClose(upTo: .seconds(10))
        }
        defer { server.stop() }
        let (client, log) = try openConnection(try HubAddress(parsing: "ws://127.0.0.1:\(server.port)/hub"), timing: timing)
        defer { client.close() }
        var event = log.next()
        if event == .connected { event = log.next() }
        return event?.lostReason
    }

    /// The `Sec-WebSocket-Key` the client sent.
    private static func key(of connection: HostileServer.Connection) -> String {
        connection.request.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
    }

    private static func opened(_ key: String) -> [UInt8] {
        Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(WebSocketHandshake.acceptValue(forKey: key))\r\n\r\n".utf8)
    }

    @Test func garbageForAnAnswerIsLostWithTheStatusLineEscaped() throws {
        let reason = try lostReason { _ in Array("SSH-2.0-OpenSSH\u{1B}[2J\r\n\r\n".utf8) }
        #expect(reason?.contains(#"refused the WebSocket handshake: it answered "SSH-2.0-OpenSSH\u001b[2J" (not an HTTP/1.1 answer)"#) == true)
    }

    @Test func aWrongAcceptKeyIsRefused() throws {
        let reason = try lostReason { _ in Array("HTTP/1.1 101 OK\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: AAAA\r\n\r\n".utf8) }
        #expect(reason?.contains("Sec-WebSocket-Accept is not the one for the key sent") == true)
    }

    @Test func aNotFoundIsRefusedNamingThePath() throws {
        let reason = try lostReason { _ in Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8) }
        #expect(reason?.contains(#"it answered "HTTP/1.1 404 Not Found" (not 101 Switching Protocols); is /hub the hub's path"#) == true)
    }

    @Test func anAnswerHeadWithoutEndIsRefusedPastItsLimit() throws {
        let reason = try lostReason { _ in Array(("HTTP/1.1 101 Switching Protocols\r\n" + String(repeating: "X-Padding: 0123456789\r\n", count: 500)).utf8) }
        #expect(reason?.contains("answered the handshake with a head over 8192 bytes") == true)
    }

    @Test func aFrameAnnouncingMoreThanTheLimitEndsTheConnectionWith1009() throws {
        let reason = try lostReason { key in Self.opened(key) + [0x82, 127, 0, 0, 0, 0, 0x7F, 0, 0, 0] }
        #expect(reason?.contains("closed with 1009: a message over the limit") == true)
    }

    @Test func aVideoFrameOverItsLimitEndsTheConnectionWith1009() throws {
        let frame = [HubVideoFrame.version, 0, 0, 0, 1, 32, 18] + [UInt8](repeating: 1, count: 4996)
        let reason = try lostReason { key in Self.opened(key) + WebSocketFrame.encode(.binary, frame) }
        #expect(reason?.contains("closed with 1009: a video frame of 5003 bytes, over 4096") == true)
    }

    @Test func aPeersFrameThatDoesNotAddUpIsDroppedAndTheLinkStays() throws {
        // The issue's frame as the hub forwards it: a valid header, stamped with the sender's uid, whose runs hold 10
        // cells, not 32×18. Then a good frame from someone else, and a notice.
        let unreadable: [UInt8] = [HubVideoFrame.version, 0, 0, 0, 7, 32, 18, 10, 0xFF, 0, 0]
        let good = HubVideoFrame(uid: 9, columns: 2, rows: 1, cells: [.init(red: 1, green: 2, blue: 3), .init(red: 4, green: 5, blue: 6)])!
        let notice = HubNotice.userOffline(uid: 7, reason: .quit)
        let server = try HostileServer { connection in
            connection.write(Self.opened(Self.key(of: connection)) + WebSocketFrame.encode(.binary, unreadable)
                             + WebSocketFrame.encode(.binary, good.encoded) + WebSocketFrame.encode(.text, Array(notice.json.utf8)))
            connection.waitForClose(upTo: .seconds(10))
        }
        defer { server.stop() }
        let (client, log) = try openConnection(try HubAddress(parsing: "ws://127.0.0.1:\(server.port)/hub"))
        defer { client.close() }
        #expect(log.next() == .connected)
        #expect(log.next() == .unreadableVideo(uid: 7, problem: "a video frame's runs hold 10 cells, not its 32×18"))
        #expect(log.next() == .video(good))
        #expect(log.next() == .notice(notice))
    }

    @Test func aBinaryMessageWithoutAFramesHeaderIsTheHubsOwnFaultAndEndsTheConnectionWith1008() throws {
        let reason = try lostReason { key in Self.opened(key) + WebSocketFrame.encode(.binary, [2, 0, 0, 0, 7, 32, 18]) }
        #expect(reason?.contains("closed with 1008: not a version 1 video frame") == true, "\(reason ?? "no loss")")
    }

    @Test func droppedByItsUserTheConnectionClosesWith1008AndComesBack() throws {
        let closes = Mutex<[WebSocketEvent]>([])
        let server = try HostileServer { connection in
            connection.write(Self.opened(Self.key(of: connection)))
            let read = connection.read(upTo: .seconds(10)) { Self.events(in: $0).contains { if case .close = $0 { true } else { false } } }
            closes.withLock { $0 += Self.events(in: read.bytes).filter { if case .close = $0 { true } else { false } } }
        }
        defer { server.stop() }
        let (client, log) = try openConnection(try HubAddress(parsing: "ws://127.0.0.1:\(server.port)/hub"))
        defer { client.close() }
        #expect(log.next() == .connected)
        client.drop("it sent more than its user takes in")
        #expect(log.next()?.lostReason?.hasSuffix("broke the protocol, closed with 1008: it sent more than its user takes in") == true)
        #expect(log.next() == .connected)
        #expect(closes.withLock { $0 }.first == .close(.policyViolation, reason: "it sent more than its user takes in"))
    }

    @Test func aNoticeOfAnUnknownTypeEndsTheConnectionWith1008() throws {
        let reason = try lostReason { key in Self.opened(key) + WebSocketFrame.encode(.text, Array(#"{"type":"hello\u001b"}"#.utf8)) }
        #expect(reason?.contains("closed with 1008: a text message that is not a hub notice: no notice of type \"hello\u{1B}\"") == true)
    }

    @Test func anAgoraCodeTheClientDoesNotKnowEndsTheConnectionWith1008InsteadOfBecomingAnother() throws {
        // Reason 7 is none of AgoraUserOfflineReason's; read leniently it would have been a plausible `quit`.
        let offline = #"{"type":"userOffline","uid":2,"reason":"kicked","reasonCode":7}"#
        let reason = try lostReason { key in Self.opened(key) + WebSocketFrame.encode(.text, Array(offline.utf8)) }
        #expect(reason?.contains("closed with 1008: a text message that is not a hub notice: reasonCode 7 is not one of "
                                 + "Agora's AgoraUserOfflineReason values") == true, "\(reason ?? "no loss")")
    }

    @Test func theHubsWordsAreDeliveredAsSentForPrintersToEscapeOnce() throws {
        let reason = try lostReason { key in Self.opened(key) + WebSocketFrame.close(.goingAway, reason: "bye\u{1B}[2J") }
        #expect(reason?.hasSuffix("closed the connection with 1001: bye\u{1B}[2J") == true)
    }

    @Test func aMaskedFrameFromTheHubIsAProtocolError() throws {
        let reason = try lostReason { key in Self.opened(key) + WebSocketFrame.encode(.text, Array("{}".utf8), mask: (1, 2, 3, 4)) }
        #expect(reason?.contains("closed with 1002: a server's frames must not be masked") == true)
    }

    /// What a client sent a "hub" that opened the connection and then sent `then`: its frames, read as a hub reads
    /// them, up to its first close frame (or, with `until`, as soon as `until` holds of them).
    private func framesSent(after then: [UInt8], timing: HubTiming = .fast,
                            until enough: @escaping @Sendable ([WebSocketEvent]) -> Bool = { _ in false }) throws -> [WebSocketEvent] {
        let sent = Mutex<[WebSocketEvent]>([])
        let done = DispatchSemaphore(value: 0)
        let server = try HostileServer { connection in
            connection.write(Self.opened(Self.key(of: connection)) + then)
            let read = connection.read(upTo: .seconds(10)) { bytes in
                let events = Self.events(in: bytes)
                return enough(events) || events.contains { if case .close = $0 { true } else { false } }
            }
            sent.withLock { $0 = Self.events(in: read.bytes) }
            done.signal()
        }
        defer { server.stop() }
        let (client, log) = try openConnection(try HubAddress(parsing: "ws://127.0.0.1:\(server.port)/hub"), timing: timing)
        defer { client.close() }
        #expect(log.next() == .connected)
        #expect(done.wait(timeout: .now() + 10) == .success)
        return sent.withLock { $0 }
    }

    private static func events(in bytes: [UInt8]) -> [WebSocketEvent] {
        var reader = WebSocketReader(role: .server)
        reader.append(bytes)
        var events: [WebSocketEvent] = []
        while let event = try? reader.next() { events.append(event) }
        return events
    }

    @Test func aHubBreakingTheProtocolIsSentACloseFrameWithTheCode() throws {
        let sent = try framesSent(after: [0x82, 127, 0, 0, 0, 0, 0x7F, 0, 0, 0])
        guard case .close(let code, let reason)? = sent.last else { Issue.record("no close frame in \(sent)"); return }
        #expect(code == .messageTooBig)
        #expect(reason.contains("a message over the limit"))
    }

    @Test func theClientAnswersAPingAndPingsByItself() throws {
        var timing = HubTiming.fast
        timing.pingInterval = .milliseconds(50)
        let sent = try framesSent(after: WebSocketFrame.encode(.ping, Array("hi".utf8)), timing: timing) { events in
            events.contains(.pong(Array("hi".utf8))) && events.contains(.ping([]))
        }
        #expect(sent.contains(.pong(Array("hi".utf8))))
        #expect(sent.contains(.ping([])))
    }

    @Test func aHubThatSaysNothingIsTakenForGone() throws {
        var timing = HubTiming.fast
        timing.silenceLimit = .milliseconds(200)
        let reason = try lostReason({ key in Self.opened(key) }, timing: timing)
        #expect(reason?.contains("nothing heard from ws://127.0.0.1:") == true)
    }

    @Test func aHubThatOpensAndClosesAtOnceIsTriedEverMoreSlowly() throws {
        let server = try HostileServer { connection in connection.write(Self.opened(Self.key(of: connection))) }
        defer { server.stop() }
        var timing = HubTiming.fast
        timing.firstBackoff = .milliseconds(10)
        timing.longestBackoff = .seconds(60)
        let (client, log) = try openConnection(try HubAddress(parsing: "ws://127.0.0.1:\(server.port)/hub"), timing: timing)
        defer { client.close() }
        var losses = 0
        while losses < 6, let event = log.next() {
            if event.lostReason != nil { losses += 1 }
        }
        #expect(losses == 6)
        // Six failures in a row: the next try waits at least 10 ms × 2⁵ × ½; a reset count would try within 10 ms.
        Thread.sleep(forTimeInterval: 0.1)
        #expect(server.requests.count == 6)
    }

    @Test func aHubThatPingsAndNeverReadsIsLostNotAnsweredWithoutEnd() throws {
        // Only the first connection is flooded; `stop` ends the flood and waits for its thread.
        let server = try HostileServer { connection in
            guard connection.index == 0 else { return }
            let pings = Array(repeating: WebSocketFrame.encode(.ping, [UInt8](repeating: 7, count: 125)), count: 1000).flatMap { $0 }
            guard connection.write(Self.opened(Self.key(of: connection))) else { return }
            for _ in 0..<200 { guard connection.write(pings) else { return } }  // 25 MB at most, until the client leaves
        }
        defer { server.stop() }
        // The kernel grows a loopback socket's send buffer to tcp_wmem's most (4 MiB here), which takes pongs before the
        // client's own queue does: 4.4 MB of pings were needed, over 10 s on two busy cores. Kept small, what the hub
        // must leave unread is the client's 256 KiB and little more, whatever the machine.
        let loop = try HubClientLoop { host, port, loop, deadline, completion in
            Dial.start(host: host, port: port, on: loop, until: deadline) { result in
                if case .success(let socket) = result {
                    var size: Int32 = 16 * 1024
                    setsockopt(socket.fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
                }
                completion(result)
            }
        }
        let client = HubConnection(address: try HubAddress(parsing: "ws://127.0.0.1:\(server.port)/hub"), loop: loop, timing: .fast)
        let log = EventLog()
        client.open(events: log.handler)
        defer { client.close() }
        #expect(log.next() == .connected)
        let reason = log.next()?.lostReason
        #expect(reason?.contains("took none of the") == true, "\(reason ?? "no loss")")
    }

    @Test func aConnectThatNeverAnswersIsLostAtTheConnectTimeout() throws {
        let silent = try #require(UnansweredPort())
        var timing = HubTiming.fast
        timing.connectTimeout = .milliseconds(100)
        let (client, log) = try openConnection(try HubAddress(parsing: "ws://127.0.0.1:\(silent.port)/hub"), timing: timing)
        defer { client.close() }
        #expect(log.next()?.lostReason == "cannot connect to ws://127.0.0.1:\(silent.port)/hub: no answer in time")
    }

    /// Issue 33: a hub's connect never blocks anything. Many connects that never answer are under way on one loop (each
    /// once held a thread of Dispatch's global queue, whose few threads they took from every other connect), and the
    /// loop's open connection goes on pinging and hearing the hub while a new one connects and joins at once.
    @Test func connectsThatNeverAnswerHoldUpNeitherTheLoopsOpenConnectionsNorItsNewOnes() throws {
        let hub = try ServedHub()
        let silent = try #require(UnansweredPort())
        let loop = try HubClientLoop()
        var timing = HubTiming.fast
        timing.pingInterval = .milliseconds(50)
        let member = HubConnection(address: hub.address, loop: loop, timing: timing)
        let memberLog = EventLog()
        member.open(events: memberLog.handler)
        defer { member.close() }
        #expect(memberLog.next() == .connected)
        member.send(ServedHub.join(1))
        #expect(memberLog.next()?.notice.map { if case .joined = $0 { true } else { false } } == true)

        let stuck = try (0..<64).map { _ in
            HubConnection(address: try HubAddress(parsing: "ws://127.0.0.1:\(silent.port)/hub"), loop: loop, timing: .standard)
        }
        for connection in stuck { connection.open { _ in } }
        defer { for connection in stuck { connection.close() } }

        let asked = ContinuousClock.now
        let newcomer = HubConnection(address: hub.address, loop: loop, timing: timing)
        let newcomerLog = EventLog()
        newcomer.open(events: newcomerLog.handler)
        defer { newcomer.close() }
        #expect(newcomerLog.next() == .connected)
        newcomer.send(ServedHub.join(2))
        #expect(newcomerLog.next()?.notice.map { if case .joined = $0 { true } else { false } } == true)
        #expect(memberLog.next() == .notice(.userJoined(HubPeer(uid: 2, account: nil))))
        #expect(ContinuousClock.now - asked < .seconds(2), "the newcomer waited \(ContinuousClock.now - asked)")
    }

    @Test func nobodyListeningIsLostSayingSo() throws {
        let (client, log) = try openConnection(try HubAddress(parsing: "ws://127.0.0.1:1/hub"))
        defer { client.close() }
        #expect(log.next()?.lostReason?.hasPrefix("cannot connect to ws://127.0.0.1:1/hub: ") == true)
        #expect(log.next()?.lostReason != nil)  // and it keeps trying
    }
}

@Suite struct HubAddressTests {
    @Test(arguments: [
        ("ws://127.0.0.1:8082/hub", "127.0.0.1", UInt16(8082), "/hub"),
        ("WS://hub.lan/hub?channel=standup", "hub.lan", UInt16(80), "/hub?channel=standup"),
        ("ws://[::1]:9000/hub", "::1", UInt16(9000), "/hub"),
        ("wss://hub.example/hub", "hub.example", UInt16(443), "/hub"),
        ("WSS://127.0.0.1:8443/hub", "127.0.0.1", UInt16(8443), "/hub"),
    ])
    func anAddressIsReadIntoHostPortAndTarget(_ text: String, _ host: String, _ port: UInt16, _ target: String) throws {
        let address = try HubAddress(parsing: text)
        #expect((address.host, address.port, address.target) == (host, port, target))
        #expect(address.isSecure == text.lowercased().hasPrefix("wss://"))
        #expect(address.description.hasPrefix(address.isSecure ? "wss://" : "ws://"))
    }

    @Test(arguments: [
        ("wss://hub.example", "the path is missing"),
        ("https://127.0.0.1:8082/hub", "a hub address is ws://HOST:PORT/PATH or wss://HOST:PORT/PATH"),
        ("http://127.0.0.1:8082/hub", "a hub address is ws://HOST:PORT/PATH"),
        ("ws://127.0.0.1:8082", "the path is missing"),
        ("ws://127.0.0.1:0/hub", "the port must be a number 1...65535"),
        ("ws://127.0.0.1:99999/hub", "the port must be a number 1...65535"),
        ("ws://user:pw@host/hub", "no user name or password"),
        ("ws://ho\u{1B}st/hub", #""ws://ho\u001bst/hub""#),
        ("ws://host/h b", "visible ASCII"),
        ("ws://[\u{FF41}\u{FF42}]:80/hub", "is not an IPv6 address"),
    ])
    func aWrongAddressIsRefusedSayingWhatTheFormIs(_ text: String, _ expected: String) {
        #expect(throws: HubAddressError.self) { try HubAddress(parsing: text) }
        do { _ = try HubAddress(parsing: text) } catch {
            #expect(error.description.contains(expected), "\(error)")
            #expect(!error.description.unicodeScalars.contains { $0.isUnsafeToPrint })
        }
    }
}

@Suite struct HubAddressErrorTests {
    @Test func aRefusedAddressIsShownWithoutItsCredentials() {
        #expect(throws: HubAddressError.self) { try HubAddress(parsing: "wss://hub.example?access_token=s3cret") }
        do {
            _ = try HubAddress(parsing: "ws://alice:hunter2@hub.example/hub?api_key=s3cret")
            Issue.record("an address with a password was taken")
        } catch {
            #expect(!error.description.contains("hunter2"))
            #expect(!error.description.contains("s3cret"))
            #expect(error.description.contains("hub.example/hub"))
        }
        do {
            _ = try HubAddress(parsing: "http://hub.example/hub?access_token=s3cret")
            Issue.record("an http:// address was taken")
        } catch {
            #expect(!error.description.contains("s3cret"))
        }
    }
}
