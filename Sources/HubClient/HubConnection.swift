import HubProtocol
import Sockets
import TLS
import WebSocket

/// A client's WebSocket connection to a hub (`Docs/hub-protocol.md`), ws:// or wss://, on a `HubClientLoop`: it connects, keeps the
/// connection alive with pings, takes a hub silent past the protocol's limit for gone, and reconnects by itself
/// after a drop.
public final class HubConnection: HubLink, @unchecked Sendable {
    public let address: HubAddress
    let timing: HubTiming
    /// For wss://, what the hub's certificate is checked against.
    let trust: TLSTrust
    private let loop: HubClientLoop
    var core: LoopCore { loop.core }

    /// The most that may wait to be sent; a hub that takes none of it is gone.
    static let maxQueuedBytes = 256 * 1024

    // The rest belongs to the loop's thread.
    enum Phase {
        /// `open` has not been called.
        case idle
        /// A connect is under way on another thread; `attempt` tells its answer from a stale one.
        case connecting(attempt: Int, deadline: ContinuousClock.Instant)
        /// The request is sent or going; the answer's head is awaited until `deadline`.
        case handshaking(Wire, key: String, deadline: ContinuousClock.Instant)
        case open(Wire)
        /// Lost; the next try is at `until`.
        case waiting(until: ContinuousClock.Instant)
        case closed
    }

    /// One TCP connection's bytes both ways (through TLS for wss://), and what the protocol keeps about it.
    final class Wire {
        let link: TLS.Wire
        var head: [UInt8] = []
        var inbound = HubInbound()
        var lastHeard: ContinuousClock.Instant
        var nextPing: ContinuousClock.Instant

        init(_ link: TLS.Wire, now: ContinuousClock.Instant) {
            self.link = link
            (lastHeard, nextPing) = (now, now)
        }

        var queued: Int { link.queued }
    }

    var phase = Phase.idle
    var silent = false
    var failures = 0
    /// Where the next try goes instead of `address`: the owner a hub redirected to (`HubCloseCode.redirect`), for one
    /// try; and how many redirects came in a row without a connection that worked.
    var redirect: HubAddress?
    var redirects = 0
    /// The address the current or next try connects to.
    var dialing: HubAddress { redirect ?? address }
    /// The hub the open connection reached, as the answer to its handshake named it (`X-Tokencall-Hub`, which
    /// `Deploy/haproxy.cfg` sets to the server's name), else the address dialed; read on the loop's thread (in `events`).
    public internal(set) var hubName: String?
    /// Redirects followed in a row at most; past them the next try goes to `address` after the usual backoff.
    static let maxRedirects = 3
    var attempts = 0
    var events: (@Sendable (HubLinkEvent) -> Void)?
    /// The socket's registration on the loop, what it waits for, and the deadline armed.
    var registration: EventLoop.Registration?
    var registeredFD: Int32?
    var interest: EventLoop.Interest = .read
    var timer: (EventLoop.Timer, ContinuousClock.Instant)?

    /// A connection to `address`, served by `loop`; nothing happens until `open`. A wss:// hub's certificate is
    /// checked against `trust`.
    public init(address: HubAddress, loop: HubClientLoop, timing: HubTiming = .standard, trust: TLSTrust = .system) {
        self.address = address
        self.loop = loop
        self.timing = timing
        self.trust = trust
    }

    public func open(events: @escaping @Sendable (HubLinkEvent) -> Void) { core.hand(.open(self, events)) }

    public func send(_ request: HubRequest) {
        core.hand(.send(self, frame: WebSocketFrame.encode(.text, Array(request.json.utf8), mask: Self.mask()), isVideo: false))
    }

    public func sendVideo(_ frame: HubVideoFrame) {
        core.hand(.send(self, frame: WebSocketFrame.encode(.binary, frame.encoded, mask: Self.mask()), isVideo: true))
    }

    public func setSilent(_ silent: Bool) { core.hand(.silent(self, silent)) }

    public func close() { core.hand(.close(self)) }

    public func drop(_ reason: String) { core.hand(.drop(self, reason: reason)) }

    /// A fresh masking key, as RFC 6455 §5.3 asks of every client frame.
    static func mask() -> (UInt8, UInt8, UInt8, UInt8) {
        var generator = SystemRandomNumberGenerator()
        let key = generator.next() as UInt32
        return (UInt8(truncatingIfNeeded: key), UInt8(truncatingIfNeeded: key >> 8),
                UInt8(truncatingIfNeeded: key >> 16), UInt8(truncatingIfNeeded: key >> 24))
    }
}
