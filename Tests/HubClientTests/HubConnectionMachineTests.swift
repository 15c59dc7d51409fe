@testable import HubClient
import HubProtocol
import Testing
import WebSocket

/// A hub connection's life, event by event, without a socket: what it asks its socket to do and what its user hears.
@Suite struct HubConnectionMachineTests {
    typealias Machine = HubConnectionMachine
    let start = ContinuousClock.now
    let address = try! HubAddress(parsing: "ws://hub.test:8080/hub").routed(to: "room")
    var timing: HubTiming { .standard }

    /// A machine whose connect succeeded and whose upgrade request went; returns the key it sent.
    private func handshaking(_ machine: inout Machine, at now: ContinuousClock.Instant) -> String? {
        guard case .connect(_, let attempt)? = machine.open(now: now).first ?? machine.tick(now: now).first else { return nil }
        var actions = machine.connected(attempt: attempt, now: now)
        if actions == [.adopt(secure: true)] { actions = machine.secured([], now: now) } else if actions.first == .adopt(secure: false) { actions.removeFirst() }
        guard actions.count == 1, case .send(let request) = actions[0] else { return nil }
        let line = String(decoding: request, as: UTF8.self).split(separator: "\r\n").first { $0.hasPrefix("Sec-WebSocket-Key: ") }
        return line.map { String($0.dropFirst("Sec-WebSocket-Key: ".count)) }
    }

    private func answer(key: String, hub: String? = nil) -> [UInt8] {
        var head = String(decoding: WebSocketHandshake.switchingProtocols(accept: WebSocketHandshake.acceptValue(forKey: key)), as: UTF8.self)
        if let hub { head = head.replacingOccurrences(of: "\r\n\r\n", with: "\r\nX-Tokencall-Hub: \(hub)\r\n\r\n") }
        return Array(head.utf8)
    }

    /// An open machine: connected, its handshake answered.
    private func opened(at now: ContinuousClock.Instant, to address: HubAddress? = nil) -> Machine {
        var machine = Machine(address: address ?? self.address, timing: timing)
        let key = handshaking(&machine, at: now)!
        _ = machine.received(answer(key: key), now: now)
        return machine
    }

    private func closeFrame(_ code: UInt16, _ reason: String = "") -> [UInt8] {
        WebSocketFrame.close(WebSocketCloseCode(rawValue: code), reason: reason)
    }

    private func lostReason(_ actions: [Machine.Action]) -> String? {
        guard case .deliver(.lost(let reason, _))? = actions.last, actions.dropLast().last == .release else { return nil }
        return reason
    }

    private func wait(of machine: Machine, from now: ContinuousClock.Instant) -> Duration? {
        guard case .waiting(let until) = machine.phase else { return nil }
        return until - now
    }

    @Test func aConnectThatDoesNotAnswerInTimeIsLostAndTriedAgainAfterABackoff() {
        var machine = Machine(address: address, timing: timing)
        #expect(machine.open(now: start) == [.connect(address, attempt: 1)])
        #expect(machine.open(now: start).isEmpty, "opened once only")
        #expect(machine.nextDeadline == start + timing.connectTimeout)
        #expect(machine.tick(now: start + .seconds(1)).isEmpty)
        let failed = start + timing.connectTimeout
        #expect(lostReason(machine.tick(now: failed)) == "cannot connect to \(address) within 5.0 seconds")
        let wait = wait(of: machine, from: failed)
        #expect(wait.map { $0 >= .milliseconds(250) && $0 <= .milliseconds(500) } == true, "the first backoff, half to all of 500 ms")
        #expect(!machine.awaits(attempt: 1))
        #expect(machine.connected(attempt: 1, now: failed).isEmpty, "a stale connect's socket is not adopted")
        #expect(machine.tick(now: failed + .milliseconds(500)) == [.connect(address, attempt: 2)])
        #expect(machine.awaits(attempt: 2))
    }

    @Test func theAnswerOpensTheConnectionNamesTheHubAndFramesThatCameWithItAreRead() throws {
        var machine = Machine(address: address, timing: timing)
        let key = try #require(handshaking(&machine, at: start))
        let notice = HubNotice.userJoined(HubPeer(uid: 7, account: nil))
        var bytes = answer(key: key, hub: "hub-b")
        #expect(machine.received(Array(bytes.prefix(20)), now: start).isEmpty, "half a head waits for the rest")
        bytes = Array(bytes.dropFirst(20)) + WebSocketFrame.encode(.text, Array(notice.json.utf8))
        #expect(machine.received(bytes, now: start + .milliseconds(5)) == [.deliver(.connected), .deliver(.notice(notice))])
        #expect(machine.hubName == "hub-b")
        #expect(machine.phase == .open(lastHeard: start + .milliseconds(5), nextPing: start + .milliseconds(5) + timing.pingInterval))
    }

    @Test func aRefusedHandshakeSaysWhatTheServerAnswered() throws {
        var machine = Machine(address: address, timing: timing)
        _ = try #require(handshaking(&machine, at: start))
        let reason = try #require(lostReason(machine.received(Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8), now: start)))
        #expect(reason.hasPrefix("\(address) refused the WebSocket handshake: it answered \"HTTP/1.1 404 Not Found\""))
        #expect(reason.hasSuffix("is /hub?channel=room the hub's path on a tokencall serve?"))
    }

    @Test func aHubThatHangsUpMidHandshakeIsQuotedAndOneThatHangsUpLaterIsToldApart() throws {
        var machine = Machine(address: address, timing: timing)
        _ = try #require(handshaking(&machine, at: start))
        _ = machine.received(Array("HTTP/1.1 200".utf8), now: start)
        #expect(lostReason(machine.ended(now: start)) == "\(address) closed the connection before answering the WebSocket handshake (it sent \"HTTP/1.1 200\")")

        var open = opened(at: start)
        #expect(lostReason(open.ended(now: start)) == "\(address) closed the connection without a close frame")
    }

    @Test func anOpenConnectionPingsOnTimeAndAHubSilentForTheLimitIsTakenForGone() throws {
        var machine = opened(at: start)
        #expect(machine.nextDeadline == start + timing.pingInterval)
        let ping = machine.tick(now: start + timing.pingInterval)
        guard case .send(let frame)? = ping.first, ping.count == 1 else { Issue.record("no ping: \(ping)"); return }
        #expect(frame.first == 0x89, "a ping frame, final")
        #expect(machine.nextDeadline == start + timing.pingInterval * 2)
        _ = machine.received(WebSocketFrame.encode(.pong, []), now: start + .seconds(6))
        #expect(machine.nextDeadline == start + .seconds(10))
        let limit = start + .seconds(6) + timing.silenceLimit
        _ = machine.tick(now: start + .seconds(10))
        let reason = "nothing heard from \(address) for \(timing.silenceLimit); the hub is taken for gone"
        #expect(machine.tick(now: limit).last == .deliver(.lost(reason: reason, silence: timing.silenceLimit)),
                "the engine counts its link's loss from the silence's start")
    }

    @Test func videoGoesOnlyWhenNothingWaitsAndRequestsAlways() {
        let machine = opened(at: start)
        #expect(machine.send([1], isVideo: true, queued: 10).isEmpty)
        #expect(machine.send([1], isVideo: true, queued: 0) == [.send([1])])
        #expect(machine.send([2], isVideo: false, queued: 10) == [.send([2])])
        #expect(Machine(address: address, timing: timing).send([2], isVideo: false, queued: 0).isEmpty, "nothing is sent before open")
    }

    @Test func aStoppingHubsGoingAwayBringsAPromptRetryOnlyAfterAConnectionThatWorked() throws {
        var machine = opened(at: start)
        let closed = machine.received(closeFrame(1001, "the hub is stopping"), now: start)
        #expect(closed.first.map { if case .sendLast = $0 { true } else { false } } == true, "the close is answered")
        #expect(lostReason(closed) == "\(address) closed the connection with 1001: the hub is stopping")
        #expect(wait(of: machine, from: start).map { $0 <= timing.promptReconnect } == true)

        // The retry answers and says 1001 at once: after a failure that counts, so the usual backoff.
        let key = try #require(handshaking(&machine, at: start + timing.promptReconnect))
        _ = machine.received(answer(key: key) + closeFrame(1001), now: start + .seconds(1))
        #expect(wait(of: machine, from: start + .seconds(1)).map { $0 >= .milliseconds(500) } == true)
    }

    @Test func aRedirectIsFollowedAtOnceAFewTimesInARowThenTheBalancerIsTriedAfterABackoff() throws {
        var machine = opened(at: start)
        var now = start
        for hop in 1...Machine.maxRedirects {
            let from = machine.dialing
            let reason = lostReason(machine.received(closeFrame(HubCloseCode.redirect, "ws://owner.test:9000/hub"), now: now))
            #expect(reason == "\(from) closed the connection with 4302: ws://owner.test:9000/hub: the channel lives on ws://owner.test:9000/hub",
                    "hop \(hop)")
            #expect(machine.dialing.description == "ws://owner.test:9000/hub?channel=room", "the owner, with this address's query")
            #expect(wait(of: machine, from: now).map { $0 <= timing.promptReconnect } == true)
            now += timing.promptReconnect
            let key = try #require(handshaking(&machine, at: now))
            _ = machine.received(answer(key: key), now: now)
        }
        let refused = lostReason(machine.received(closeFrame(HubCloseCode.redirect, "ws://owner.test:9000/hub"), now: now))
        #expect(refused?.hasSuffix("(too many redirects in a row)") == true)
        #expect(machine.dialing == address)
        #expect(wait(of: machine, from: now).map { $0 > timing.promptReconnect } == true)
    }

    @Test func aRedirectLoopIsCutInWordsAndEachRoundFromTheNamedAddressMayFollowAgainAfterALongerWait() throws {
        var machine = opened(at: start)
        var now = start
        var waits: [Duration] = []
        for round in 1...3 {
            for hop in 0...Machine.maxRedirects {
                let owner = hop % 2 == 0 ? "ws://b.test:9000/hub" : "ws://a.test:9000/hub"
                let reason = try #require(lostReason(machine.received(closeFrame(HubCloseCode.redirect, owner), now: now)))
                if hop < Machine.maxRedirects {
                    #expect(reason.hasSuffix("the channel lives on \(owner)"), "round \(round), hop \(hop): \(reason)")
                } else {
                    #expect(reason.hasSuffix("(too many redirects in a row)"), "round \(round): \(reason)")
                    #expect(machine.dialing == address)
                }
                let pause = try #require(wait(of: machine, from: now))
                if hop == Machine.maxRedirects { waits.append(pause) }
                now += pause
                let key = try #require(handshaking(&machine, at: now))
                _ = machine.received(answer(key: key), now: now)
            }
        }
        #expect(waits[0] < waits[2], "the rounds back off: \(waits)")
    }

    @Test func aRedirectFromWssToWsIsRefusedInWordsAndTheNextTryIsTheNamedHubAfterABackoff() throws {
        let secure = try HubAddress(parsing: "wss://hub.test/hub").routed(to: "room")
        var machine = opened(at: start, to: secure)
        let reason = lostReason(machine.received(closeFrame(HubCloseCode.redirect, "ws://owner.test:9000/hub"), now: start))
        #expect(reason == "wss://hub.test:443/hub?channel=room closed the connection with 4302: ws://owner.test:9000/hub: "
                + "ws://owner.test:9000/hub is not followed: from a wss:// hub a redirect goes only to wss://, or the token "
                + "would cross the network unencrypted; the next try is to wss://hub.test:443/hub?channel=room again")
        #expect(machine.dialing == secure)
        let backoff = try #require(wait(of: machine, from: start))
        #expect(backoff > timing.promptReconnect, "the usual backoff: a hub that keeps redirecting there is not hammered")
        #expect(machine.tick(now: start + backoff) == [.connect(secure, attempt: 2)])
        #expect(machine.connected(attempt: 2, now: start + backoff) == [.adopt(secure: true)], "over TLS, to the hub the user named")
    }

    @Test func aRedirectFromWssToAnotherWssHubIsFollowedOverTLS() throws {
        let secure = try HubAddress(parsing: "wss://hub.test/hub").routed(to: "room")
        var machine = opened(at: start, to: secure)
        _ = machine.received(closeFrame(HubCloseCode.redirect, "wss://owner.test:9443/hub"), now: start)
        #expect(machine.dialing.description == "wss://owner.test:9443/hub?channel=room")
        let next = start + timing.promptReconnect
        #expect(machine.tick(now: next) == [.connect(machine.dialing, attempt: 2)])
        #expect(machine.connected(attempt: 2, now: next) == [.adopt(secure: true)])
    }

    @Test func aRedirectToSomethingNotAnAddressIsALossInWords() {
        var machine = opened(at: start)
        let reason = lostReason(machine.received(closeFrame(HubCloseCode.redirect, "elsewhere"), now: start))
        #expect(reason == "\(address) closed the connection with 4302: elsewhere (not an address to follow)")
        #expect(machine.dialing == address)
    }

    @Test func aHubThatBreaksTheProtocolIsToldWhyAndLeft() {
        var machine = opened(at: start)
        let actions = machine.received(WebSocketFrame.encode(.text, Array("not json".utf8)), now: start)
        guard case .sendLast(let close)? = actions.first else { Issue.record("no close frame: \(actions)"); return }
        #expect(close.first == 0x88, "a close frame, final")
        #expect(lostReason(actions)?.hasPrefix("\(address) broke the protocol, closed with 1008: a text message that is not a hub notice") == true)
    }

    @Test func aSilentLinkDoesNothingUntilItSpeaksAgainAndThenCountsFromThen() {
        var machine = opened(at: start)
        machine.setSilent(true, now: start)
        #expect(machine.nextDeadline == nil)
        #expect(machine.tick(now: start + .seconds(60)).isEmpty, "no silence limit while the user holds the link silent")
        machine.setSilent(false, now: start + .seconds(60))
        #expect(machine.phase == .open(lastHeard: start + .seconds(60), nextPing: start + .seconds(60)))
    }

    @Test func closingSendsACloseFrameWhenOpenAndNothingHappensAfter() {
        var machine = opened(at: start)
        let actions = machine.close()
        #expect(actions.count == 2 && actions.last == .release)
        #expect(machine.phase == .closed)
        #expect(machine.received(closeFrame(1000), now: start).isEmpty)
        #expect(machine.tick(now: start + .seconds(60)).isEmpty)
        #expect(machine.failed(.broke, now: start).isEmpty)
        #expect(machine.close().isEmpty)
    }

    @Test func eachTroubleIsSaidInWords() {
        for (trouble, words) in [(Machine.Trouble.broke, "the connection to \(address) broke"),
                                 (.overfull(queued: 262_000), "\(address) took none of the 262000 bytes waiting for it"),
                                 (.cannotOpenTLS("handshake refused"), "cannot open a TLS connection to \(address): handshake refused")] {
            var machine = opened(at: start)
            #expect(lostReason(machine.failed(trouble, now: start)) == words)
        }
    }
}
