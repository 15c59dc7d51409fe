import HubProtocol
import PrintableText
import Sockets
import TLS
import WebSocket

// What the loop's thread does with a connection; nothing here runs on any other thread.
extension HubConnection {
    /// Starts connecting; false when the connection was opened before or closed.
    func begin(events: @escaping @Sendable (HubLinkEvent) -> Void) -> Bool {
        guard case .idle = phase else { return false }
        self.events = events
        startConnecting()
        return true
    }

    /// The wire the loop waits on; nil while there is none.
    private var currentWire: Wire? {
        switch phase {
        case .handshaking(let wire, _, _), .open(let wire): wire
        default: nil
        }
    }

    /// When `checkTimes` next has something to do; nil while silent or with nothing planned.
    var nextDeadline: ContinuousClock.Instant? {
        guard !silent else { return nil }
        switch phase {
        case .connecting(_, let deadline), .handshaking(_, _, let deadline): return deadline
        case .open(let wire): return min(wire.nextPing, wire.lastHeard + timing.silenceLimit)
        case .waiting(let until): return until
        default: return nil
        }
    }

    /// After every event: the socket registered with what it waits for (nothing while silent), the next deadline armed.
    func settle() {
        let loop = core.loop
        let fd = currentWire?.link.socket.fd
        if let registration, fd != registeredFD {
            loop.deregister(registration)
            self.registration = nil
        }
        if let wire = currentWire, registration == nil {
            registeredFD = wire.link.socket.fd
            interest = .read
            registration = loop.register(wire.link.socket.fd, for: .read) { [self] readiness in
                ready(readiness)
                settle()
            }
        }
        if let registration, let wire = currentWire {
            let wanted: EventLoop.Interest = silent ? [] : wire.queued > 0 ? [.read, .write] : .read
            if wanted != interest {
                interest = wanted
                loop.change(registration, to: wanted)
            }
        }
        guard let due = nextDeadline else {
            if let (held, _) = timer { loop.cancel(held) }
            timer = nil
            return
        }
        if let (_, armed) = timer, armed <= due { return }
        if let (held, _) = timer { loop.cancel(held) }
        timer = (loop.schedule(at: due) { [self] in
            timer = nil
            checkTimes(core.clock.now)
            settle()
        }, due)
    }

    func checkTimes(_ now: ContinuousClock.Instant) {
        guard !silent else { return }
        switch phase {
        case .connecting(_, let deadline) where now >= deadline:
            lost("cannot connect to \(dialing) within \(timing.connectTimeout)")
        case .handshaking(_, _, let deadline) where now >= deadline:
            lost("\(dialing) did not finish the WebSocket handshake within \(timing.connectTimeout)")
        case .open(let wire) where now >= wire.lastHeard + timing.silenceLimit:
            lost("nothing heard from \(dialing) for \(timing.silenceLimit); the hub is taken for gone")
        case .open(let wire) where now >= wire.nextPing:
            wire.nextPing = now + timing.pingInterval
            (failures, redirects) = (0, 0)  // open a whole ping interval: the connection works
            queue(WebSocketFrame.encode(.ping, [], mask: Self.mask()), on: wire)
        case .waiting(let until) where now >= until:
            startConnecting()
        default: break
        }
    }

    func ready(_ readiness: EventLoop.Readiness) {
        guard !silent, let wire = currentWire else { return }
        if readiness.writable { write(wire) }
        if readiness.readable { read(wire) }
    }

    /// Queues a frame: a request always (while connected), a video frame only when nothing waits to go.
    func enqueue(_ frame: [UInt8], isVideo: Bool) {
        guard case .open(let wire) = phase, !(isVideo && (silent || wire.queued > 0)) else { return }
        queue(frame, on: wire)
    }

    func changeSilence(_ silent: Bool) {
        guard silent != self.silent else { return }
        self.silent = silent
        guard !silent else { return }
        let now = core.clock.now
        switch phase {
        case .handshaking(let wire, let key, _): phase = .handshaking(wire, key: key, deadline: now + timing.connectTimeout)
        case .open(let wire): (wire.lastHeard, wire.nextPing) = (now, now)
        case .waiting: phase = .waiting(until: now)
        default: break
        }
    }

    /// Closes an open connection as broken by the hub, at its user's word (`HubLink.drop`).
    func abandon(_ reason: String) {
        guard case .open(let wire) = phase else { return }
        fail(wire, .policyViolation, reason)
    }

    /// Ends the connection for good: a close frame when open, no more events.
    func closeForGood() {
        switch phase {
        case .open(let wire):
            try? wire.link.queue(WebSocketFrame.close(.normal, reason: "", mask: Self.mask()))
            write(wire, reportingFailure: false)
        default: break
        }
        release()
        phase = .closed
        events = nil
    }

    /// Off the loop and closed: the socket, its registration, its deadline.
    private func release() {
        if let registration { core.loop.deregister(registration) }
        registration = nil
        registeredFD = nil
        if let (held, _) = timer { core.loop.cancel(held) }
        timer = nil
        currentWire?.link.socket.close()
    }

    func connectFinished(attempt: Int, _ result: Result<Socket, SocketError>) {
        guard case .connecting(attempt, let deadline) = phase else {
            if case .success(let socket) = result { socket.close() }
            return
        }
        switch result {
        case .failure(let error): lost("cannot connect to \(dialing): \(error.reason)")
        case .success(let socket):
            let key = WebSocketHandshake.randomKey()
            var session: TLSSession?
            if dialing.isSecure {
                do {
                    session = try TLSSession(context: try TLSContext.shared(trust), host: dialing.host)
                } catch {
                    socket.close()
                    return lost("cannot open a TLS connection to \(dialing): \(error)")
                }
            }
            let wire = Wire(TLS.Wire(socket, tls: session), now: core.clock.now)
            phase = .handshaking(wire, key: key, deadline: deadline)
            do {
                if session != nil {
                    try wire.link.start()
                } else {
                    try wire.link.queue(upgradeRequest(key: key))
                }
            } catch {
                return lost("cannot open a TLS connection to \(dialing): \(error)")
            }
            if !silent { write(wire) }
        }
    }

    private func upgradeRequest(key: String) -> [UInt8] {
        WebSocketHandshake.clientRequest(target: dialing.target, host: dialing.hostHeader, key: key)
    }

    // MARK: -

    private func startConnecting() {
        attempts += 1
        phase = .connecting(attempt: attempts, deadline: core.clock.now + timing.connectTimeout)
        core.connect(self, attempt: attempts, within: timing.connectTimeout)
    }

    private func deliver(_ event: HubLinkEvent) { events?(event) }

    /// Queues a frame and sends what the socket takes; with `maxQueuedBytes` waiting already, the connection is lost.
    /// Only the last frame, a close, is queued without this check.
    private func queue(_ frame: [UInt8], on wire: Wire) {
        guard wire.queued + frame.count <= Self.maxQueuedBytes else {
            return lost("\(dialing) took none of the \(wire.queued) bytes waiting for it")
        }
        do {
            try wire.link.queue(frame)
        } catch {
            return lost("the TLS connection to \(dialing) broke: \(error)")
        }
        if !silent { write(wire) }
    }

    /// The connection is gone: says why (as the hub sent it; printers escape) and plans the next try.
    private func lost(_ reason: String, promptly: Bool = false) {
        release()
        let wait = promptly ? timing.promptReconnect * Double.random(in: 0...1)
            : timing.backoff(after: failures, fraction: Double.random(in: 0.5...1))
        failures += 1
        redirect = nil
        phase = .waiting(until: core.clock.now + wait)
        deliver(.lost(reason: reason))
    }

    /// Closes with `code` because the hub broke the protocol, then reports the loss.
    private func fail(_ wire: Wire, _ code: WebSocketCloseCode, _ reason: String) {
        try? wire.link.queue(WebSocketFrame.close(code, reason: reason, mask: Self.mask()))
        write(wire, reportingFailure: false)
        lost("\(dialing) broke the protocol, closed with \(code.rawValue): \(reason)")
    }

    /// Sends what the socket takes now; a broken connection is lost unless the caller is ending it anyway.
    private func write(_ wire: Wire, reportingFailure: Bool = true) {
        if case .failed = wire.link.flush(), reportingFailure, isCurrent(wire) { lost("the connection to \(dialing) broke") }
    }

    private func isCurrent(_ wire: Wire) -> Bool {
        switch phase {
        case .handshaking(let current, _, _), .open(let current): current === wire
        default: false
        }
    }

    private func read(_ wire: Wire) {
        guard isCurrent(wire) else { return }
        var received: [UInt8]
        switch wire.link.receive(scratch: &core.scratch) {
        case .nothing:
            if wire.queued > 0 { write(wire) }  // handshake bytes to answer
            return
        case .refused(let failure):
            return lost("cannot open a TLS connection to \(dialing): \(failure)")
        case .ended(let bytes) where bytes.isEmpty:
            guard case .handshaking = phase else { return lost("\(dialing) closed the connection without a close frame") }
            let sent = wire.head.isEmpty ? "" : " (it sent \(String(decoding: wire.head.prefix(80), as: UTF8.self).jsonQuoted))"
            return lost("\(dialing) closed the connection before answering the WebSocket handshake\(sent)")
        case .ended(let bytes), .data(let bytes):
            received = bytes
            wire.lastHeard = core.clock.now
        case .secured(let bytes):
            guard case .handshaking(_, let key, _) = phase else { return }
            do {
                try wire.link.queue(upgradeRequest(key: key))
            } catch {
                return lost("cannot open a TLS connection to \(dialing): \(error)")
            }
            write(wire)
            guard isCurrent(wire), !bytes.isEmpty else { return }
            received = bytes
            wire.lastHeard = core.clock.now
        }
        switch phase {
        case .handshaking(_, let key, _):
            wire.head += received
            let end = wire.head.firstRange(of: [13, 10, 13, 10])
            guard (end?.lowerBound ?? wire.head.count) <= WebSocketHandshake.maxAnswerHeadBytes else {
                return lost("\(dialing) answered the handshake with a head over \(WebSocketHandshake.maxAnswerHeadBytes) bytes")
            }
            guard let end else { return }
            if case .failure(let refusal) = WebSocketHandshake.checkAnswer(Array(wire.head[..<end.lowerBound]), key: key) {
                return lost("\(dialing) refused the WebSocket handshake: it answered \(String(refusal.statusLine.prefix(200)).jsonQuoted) "
                            + "(\(refusal.problem)); is \(dialing.target) the hub's path on a tokencall serve?")
            }
            hubName = Self.hubName(inAnswer: wire.head[..<end.lowerBound]) ?? "\(dialing.host):\(dialing.port)"
            wire.inbound.append(wire.head[end.upperBound...])
            wire.head = []
            wire.nextPing = core.clock.now + timing.pingInterval
            phase = .open(wire)
            deliver(.connected)
        case .open:
            wire.inbound.append(received)
        default: return
        }
        readFrames(wire)
    }

    /// The hub says the channel lives on another hub: the next try goes there at once, with this address's query
    /// (a few times in a row at most; then back to `address` after the usual backoff).
    private func follow(redirect reason: String, from: HubAddress, _ said: String) {
        let owner = try? HubAddress(parsing: reason)
        guard let owner, redirects < Self.maxRedirects else {
            return lost("\(from) closed the connection \(said)" + (owner == nil ? " (not an address to follow)" : " (too many redirects in a row)"))
        }
        lost("\(from) closed the connection \(said): the channel lives on \(owner)", promptly: true)
        failures -= 1  // a hub that redirects works; only a try that fails counts
        redirects += 1
        redirect = address.redirected(to: owner)
    }

    /// The `X-Tokencall-Hub` header of a handshake's answer: at most 64 bytes of letters, digits and `-._:`; nil otherwise.
    static func hubName(inAnswer head: ArraySlice<UInt8>) -> String? {
        for line in String(decoding: head, as: UTF8.self).split(separator: "\r\n") where line.lowercased().hasPrefix("x-tokencall-hub:") {
            let value = line.dropFirst("x-tokencall-hub:".count).trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty, value.utf8.count <= 64,
                  value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._:".contains($0)) }) else { return nil }
            return value
        }
        return nil
    }

    private func readFrames(_ wire: Wire) {
        while case .open(let current) = phase, current === wire, let step = wire.inbound.next() {
            switch step {
            case .deliver(let event):
                if case .notice = event { (failures, redirects) = (0, 0) }  // the hub speaks the protocol: the connection works
                deliver(event)
            case .pong(let payload):
                queue(WebSocketFrame.encode(.pong, payload, mask: Self.mask()), on: wire)
            case .heard: break
            case .broken(let code, let reason):
                return fail(wire, code, reason)
            case .closed(let code, let reason):
                try? wire.link.queue(WebSocketFrame.close(code == .noStatus ? .normal : code, reason: "", mask: Self.mask()))
                write(wire, reportingFailure: false)
                let said = code == .noStatus ? "without a code" : "with \(code.rawValue)" + (reason.isEmpty ? "" : ": \(reason)")
                let from = dialing
                if code.rawValue == HubCloseCode.redirect { return follow(redirect: reason, from: from, said) }
                // A hub that is stopping asks its clients to go elsewhere now (the balancer picks another hub).
                // Only after a connection that worked: a hub that answers and says 1001 at once is tried ever more
                // slowly, like one that closes at once.
                return lost("\(from) closed the connection \(said)", promptly: code == .goingAway && failures == 0)
            }
        }
    }
}
