import HubProtocol
import PrintableText
import WebSocket

/// One hub connection's life as a value (`Docs/hub-protocol.md`, "Clients"): connecting, the opening handshake,
/// pings and the silence limit, backoff after a loss, redirects to a channel's owner and a stopping hub's 1001.
/// Each event returns what `HubConnection` must do with its socket; the machine itself does no I/O, so every
/// transition is tested without one.
struct HubConnectionMachine {
    typealias Instant = ContinuousClock.Instant

    enum Phase: Equatable {
        /// `open` has not been called.
        case idle
        /// A `Dial` is under way on the loop; `attempt` tells its answer from a stale one.
        case connecting(attempt: Int, deadline: Instant)
        /// The socket is connected; the answer to the upgrade request is awaited until `deadline`.
        case handshaking(key: String, deadline: Instant)
        case open(lastHeard: Instant, nextPing: Instant)
        /// Lost; the next try is at `until`.
        case waiting(until: Instant)
        case closed
    }

    /// What the connection does, in order. After an action whose I/O fails (reported back with `failed`), the rest
    /// of the list belongs to a connection that is gone and is not carried out.
    enum Action: Equatable {
        /// Connect to the address within the connect timeout, without blocking the loop; the answer comes back to
        /// `connected(attempt:now:)` or `failed(_:)` with this attempt.
        case connect(HubAddress, attempt: Int)
        /// Take the connected socket as the connection's wire, with TLS to the address's host when `secure`.
        case adopt(secure: Bool)
        /// Queue bytes on the wire and send what the socket takes.
        case send([UInt8])
        /// Queue a last frame (a close) and send what goes now; a failure no longer matters.
        case sendLast([UInt8])
        /// Close the socket, off the loop.
        case release
        case deliver(HubLinkEvent)
    }

    /// What went wrong with the wire, as the connection saw it.
    enum Trouble: Equatable {
        case cannotConnect(String)
        case cannotOpenTLS(String)
        case tlsBroke(String)
        case broke
        case overfull(queued: Int)
    }

    let address: HubAddress
    let timing: HubTiming
    private(set) var phase = Phase.idle
    /// While silent nothing is sent, read or timed (fault injection: a link that hangs).
    private(set) var silent = false
    private var failures = 0
    private var attempts = 0
    /// Where the next try goes instead of `address`: the owner a hub redirected to (`HubCloseCode.redirect`), for one
    /// try; and how many redirects came in a row without a connection that worked.
    private var redirect: HubAddress?
    private var redirects = 0
    /// The hub the open connection reached, as the answer to its handshake named it (`X-Tokencall-Hub`, which
    /// `Deploy/haproxy.cfg` sets to the server's name), else the address dialed.
    private(set) var hubName: String?
    /// The handshake's answer so far, then the frames.
    private var head: [UInt8] = []
    private var inbound = HubInbound()

    /// Redirects followed in a row at most; past them the next try goes to `address` after the usual backoff, and a
    /// new round may follow as many.
    static let maxRedirects = 3

    init(address: HubAddress, timing: HubTiming) {
        (self.address, self.timing) = (address, timing)
    }

    /// The address the current or next try connects to.
    var dialing: HubAddress { redirect ?? address }

    /// When `tick` next has something to do; nil while silent or with nothing planned.
    var nextDeadline: Instant? {
        guard !silent else { return nil }
        switch phase {
        case .connecting(_, let deadline), .handshaking(_, let deadline): return deadline
        case .open(let lastHeard, let nextPing): return min(nextPing, lastHeard + timing.silenceLimit)
        case .waiting(let until): return until
        case .idle, .closed: return nil
        }
    }

    /// Whether a connect's answer is for the try under way; a stale one's socket is closed unused.
    func awaits(attempt: Int) -> Bool {
        if case .connecting(attempt, _) = phase { true } else { false }
    }

    // MARK: Events

    mutating func open(now: Instant) -> [Action] {
        guard phase == .idle else { return [] }
        return startConnecting(now: now)
    }

    /// The connect for `attempt` succeeded; the socket is adopted and the upgrade request goes (after TLS's
    /// handshake for wss://, at `secured`).
    mutating func connected(attempt: Int, now: Instant) -> [Action] {
        guard case .connecting(attempt, let deadline) = phase else { return [] }
        phase = .handshaking(key: WebSocketHandshake.randomKey(), deadline: deadline)
        head = []
        return dialing.isSecure ? [.adopt(secure: true)] : [.adopt(secure: false), .send(upgradeRequest)]
    }

    /// TLS's handshake finished; `bytes` are what came with its last record.
    mutating func secured(_ bytes: [UInt8], now: Instant) -> [Action] {
        guard case .handshaking = phase else { return [] }
        return [.send(upgradeRequest)] + (bytes.isEmpty ? [] : received(bytes, now: now))
    }

    mutating func received(_ bytes: [UInt8], now: Instant) -> [Action] {
        switch phase {
        case .handshaking(let key, _):
            head += bytes
            let end = Self.blankLine(in: head)
            guard (end?.lowerBound ?? head.count) <= WebSocketHandshake.maxAnswerHeadBytes else {
                return lost("\(dialing) answered the handshake with a head over \(WebSocketHandshake.maxAnswerHeadBytes) bytes", now: now)
            }
            guard let end else { return [] }
            if case .failure(let refusal) = WebSocketHandshake.checkAnswer(Array(head[..<end.lowerBound]), key: key) {
                return lost("\(dialing) refused the WebSocket handshake: it answered \(String(refusal.statusLine.prefix(200)).jsonQuoted) "
                            + "(\(refusal.problem)); is \(dialing.target) the hub's path on a tokencall serve?", now: now)
            }
            hubName = Self.hubName(inAnswer: head[..<end.lowerBound]) ?? "\(dialing.host):\(dialing.port)"
            inbound = HubInbound()
            inbound.append(head[end.upperBound...])
            head = []
            phase = .open(lastHeard: now, nextPing: now + timing.pingInterval)
            return [.deliver(.connected)] + readFrames(now: now)
        case .open(_, let nextPing):
            phase = .open(lastHeard: now, nextPing: nextPing)
            inbound.append(bytes)
            return readFrames(now: now)
        case .idle, .connecting, .waiting, .closed:
            return []
        }
    }

    /// The hub closed its end of the TCP connection.
    mutating func ended(now: Instant) -> [Action] {
        switch phase {
        case .handshaking:
            let sent = head.isEmpty ? "" : " (it sent \(String(decoding: head.prefix(80), as: UTF8.self).jsonQuoted))"
            return lost("\(dialing) closed the connection before answering the WebSocket handshake\(sent)", now: now)
        case .open:
            return lost("\(dialing) closed the connection without a close frame", now: now)
        case .idle, .connecting, .waiting, .closed:
            return []
        }
    }

    /// The connect, TLS or the socket failed.
    mutating func failed(_ trouble: Trouble, now: Instant) -> [Action] {
        switch phase {
        case .connecting, .handshaking, .open: break
        case .idle, .waiting, .closed: return []
        }
        let reason = switch trouble {
        case .cannotConnect(let why): "cannot connect to \(dialing): \(why)"
        case .cannotOpenTLS(let why): "cannot open a TLS connection to \(dialing): \(why)"
        case .tlsBroke(let why): "the TLS connection to \(dialing) broke: \(why)"
        case .broke: "the connection to \(dialing) broke"
        case .overfull(let queued): "\(dialing) took none of the \(queued) bytes waiting for it"
        }
        return lost(reason, now: now)
    }

    /// A deadline came (or a later instant: each phase checks its own).
    mutating func tick(now: Instant) -> [Action] {
        guard !silent else { return [] }
        switch phase {
        case .connecting(_, let deadline) where now >= deadline:
            return lost("cannot connect to \(dialing) within \(timing.connectTimeout)", now: now)
        case .handshaking(_, let deadline) where now >= deadline:
            return lost("\(dialing) did not finish the WebSocket handshake within \(timing.connectTimeout)", now: now)
        case .open(let lastHeard, _) where now >= lastHeard + timing.silenceLimit:
            return lost("nothing heard from \(dialing) for \(timing.silenceLimit); the hub is taken for gone",
                        silence: timing.silenceLimit, now: now)
        case .open(let lastHeard, let nextPing) where now >= nextPing:
            phase = .open(lastHeard: lastHeard, nextPing: now + timing.pingInterval)
            (failures, redirects) = (0, 0)  // open a whole ping interval: the connection works
            return [.send(WebSocketFrame.encode(.ping, [], mask: Self.mask()))]
        case .waiting(let until) where now >= until:
            return startConnecting(now: now)
        default:
            return []
        }
    }

    /// A frame to send: a request always (while open), a video frame only when nothing waits to go.
    func send(_ frame: [UInt8], isVideo: Bool, queued: Int) -> [Action] {
        guard case .open = phase, !(isVideo && (silent || queued > 0)) else { return [] }
        return [.send(frame)]
    }

    mutating func setSilent(_ silent: Bool, now: Instant) {
        guard silent != self.silent else { return }
        self.silent = silent
        guard !silent else { return }
        switch phase {
        case .handshaking(let key, _): phase = .handshaking(key: key, deadline: now + timing.connectTimeout)
        case .open: phase = .open(lastHeard: now, nextPing: now)
        case .waiting: phase = .waiting(until: now)
        case .idle, .connecting, .closed: break
        }
    }

    /// Closes an open connection as broken by the hub, at its user's word (`HubLink.drop`).
    mutating func drop(_ reason: String, now: Instant) -> [Action] {
        guard case .open = phase else { return [] }
        return fail(.policyViolation, reason, now: now)
    }

    /// Ends the connection for good: a close frame when open; nothing more happens after.
    mutating func close() -> [Action] {
        defer { phase = .closed }
        switch phase {
        case .open: return [.sendLast(WebSocketFrame.close(.normal, reason: "", mask: Self.mask())), .release]
        case .closed: return []
        case .idle, .connecting, .handshaking, .waiting: return [.release]
        }
    }

    // MARK: -

    private var upgradeRequest: [UInt8] {
        guard case .handshaking(let key, _) = phase else { return [] }
        return WebSocketHandshake.clientRequest(target: dialing.target, host: dialing.hostHeader, key: key)
    }

    private mutating func startConnecting(now: Instant) -> [Action] {
        attempts += 1
        phase = .connecting(attempt: attempts, deadline: now + timing.connectTimeout)
        return [.connect(dialing, attempt: attempts)]
    }

    /// The connection is gone: says why (as the hub sent it; printers escape) and plans the next try.
    private mutating func lost(_ reason: String, promptly: Bool = false, silence: Duration = .zero, now: Instant) -> [Action] {
        let wait = promptly ? timing.promptReconnect * Double.random(in: 0...1)
            : timing.backoff(after: failures, fraction: Double.random(in: 0.5...1))
        failures += 1
        redirect = nil
        phase = .waiting(until: now + wait)
        return [.release, .deliver(.lost(reason: reason, silence: silence))]
    }

    /// Closes with `code` because the hub broke the protocol, then reports the loss.
    private mutating func fail(_ code: WebSocketCloseCode, _ reason: String, now: Instant) -> [Action] {
        [.sendLast(WebSocketFrame.close(code, reason: reason, mask: Self.mask()))]
            + lost("\(dialing) broke the protocol, closed with \(code.rawValue): \(reason)", now: now)
    }

    /// The hub says the channel lives on another hub: the next try goes there at once, with this address's query
    /// (a few times in a row at most, never from wss:// to ws://; otherwise back to `address` after the usual backoff).
    private mutating func follow(redirect reason: String, said: String, now: Instant) -> [Action] {
        let from = dialing
        guard let owner = try? HubAddress(parsing: reason) else {
            return lost("\(from) closed the connection \(said) (not an address to follow)", now: now)
        }
        let next: HubAddress
        do { next = try address.redirected(to: owner) } catch {
            return lost("\(from) closed the connection \(said): \(error); the next try is to \(address) again", now: now)
        }
        guard redirects < Self.maxRedirects else {
            redirects = 0  // the next round, from `address` after the backoff, may follow again: the owner may be right by then
            return lost("\(from) closed the connection \(said) (too many redirects in a row)", now: now)
        }
        let actions = lost("\(from) closed the connection \(said): the channel lives on \(owner)", promptly: true, now: now)
        failures -= 1  // a hub that redirects works; only a try that fails counts
        redirects += 1
        redirect = next
        return actions
    }

    private mutating func readFrames(now: Instant) -> [Action] {
        var actions: [Action] = []
        while case .open = phase, let step = inbound.next() {
            switch step {
            case .deliver(let event):
                if case .notice = event { (failures, redirects) = (0, 0) }  // the hub speaks the protocol: the connection works
                actions.append(.deliver(event))
            case .pong(let payload):
                actions.append(.send(WebSocketFrame.encode(.pong, payload, mask: Self.mask())))
            case .heard: break
            case .broken(let code, let reason):
                return actions + fail(code, reason, now: now)
            case .closed(let code, let reason):
                actions.append(.sendLast(WebSocketFrame.close(code == .noStatus ? .normal : code, reason: "", mask: Self.mask())))
                let said = code == .noStatus ? "without a code" : "with \(code.rawValue)" + (reason.isEmpty ? "" : ": \(reason)")
                if code.rawValue == HubCloseCode.redirect { return actions + follow(redirect: reason, said: said, now: now) }
                // A hub that is stopping asks its clients to go elsewhere now (the balancer picks another hub).
                // Only after a connection that worked: a hub that answers and says 1001 at once is tried ever more
                // slowly, like one that closes at once.
                return actions + lost("\(dialing) closed the connection \(said)", promptly: code == .goingAway && failures == 0, now: now)
            }
        }
        return actions
    }

    /// Where the first CR LF CR LF is in `head`: the end of an answer's head.
    static func blankLine(in head: [UInt8]) -> Range<Int>? {
        guard head.count >= 4 else { return nil }
        for start in 0...(head.count - 4) where head[start] == 13 && head[start + 1] == 10 && head[start + 2] == 13 && head[start + 3] == 10 {
            return start..<(start + 4)
        }
        return nil
    }

    /// The `X-Tokencall-Hub` header of a handshake's answer: at most 64 bytes of letters, digits and `-._:`; nil otherwise.
    static func hubName(inAnswer head: ArraySlice<UInt8>) -> String? {
        for line in WebSocketHandshake.headLines(head) where line.utf8.count >= 16 && line.prefix(16).lowercased() == "x-tokencall-hub:" {
            let value = line.dropFirst("x-tokencall-hub:".count).trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty, value.utf8.count <= 64,
                  value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._:".contains($0)) }) else { return nil }
            return value
        }
        return nil
    }

    /// A fresh masking key, as RFC 6455 §5.3 asks of every client frame.
    static func mask() -> (UInt8, UInt8, UInt8, UInt8) {
        var generator = SystemRandomNumberGenerator()
        let key = generator.next() as UInt32
        return (UInt8(truncatingIfNeeded: key), UInt8(truncatingIfNeeded: key >> 8),
                UInt8(truncatingIfNeeded: key >> 16), UInt8(truncatingIfNeeded: key >> 24))
    }
}
