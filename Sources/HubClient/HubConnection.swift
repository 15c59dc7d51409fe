import HubProtocol
import Sockets
import TLS
import WebSocket

/// A client's WebSocket connection to a hub (`Docs/hub-protocol.md`), ws:// or wss://, on a `HubClientLoop`: it connects, keeps the
/// connection alive with pings, takes a hub silent past the protocol's limit for gone, and reconnects by itself
/// after a drop.
public final class HubConnection: HubLink, @unchecked Sendable {
    public let address: HubAddress
    /// For wss://, what the hub's certificate is checked against.
    let trust: TLSTrust
    private let loop: HubClientLoop
    var core: LoopCore { loop.core }

    /// The most that may wait to be sent; a hub that takes none of it is gone.
    static let maxQueuedBytes = 256 * 1024

    // The rest belongs to the loop's thread.
    var machine: HubConnectionMachine
    /// The connected socket's bytes both ways (through TLS for wss://), while the machine has a wire.
    var wire: TLS.Wire?
    var events: (@Sendable (HubLinkEvent) -> Void)?
    /// The socket's registration on the loop, what it waits for, and the deadline armed.
    var registration: EventLoop.Registration?
    var registeredFD: Int32?
    var interest: EventLoop.Interest = .read
    var timer: (EventLoop.Timer, ContinuousClock.Instant)?

    /// The hub the open connection reached (`HubConnectionMachine.hubName`); read on the loop's thread (in `events`).
    public var hubName: String? { machine.hubName }
    var dialing: HubAddress { machine.dialing }

    /// A connection to `address`, served by `loop`; nothing happens until `open`. A wss:// hub's certificate is
    /// checked against `trust`.
    public init(address: HubAddress, loop: HubClientLoop, timing: HubTiming = .standard, trust: TLSTrust = .system) {
        self.address = address
        self.loop = loop
        self.trust = trust
        machine = HubConnectionMachine(address: address, timing: timing)
    }

    public func open(events: @escaping @Sendable (HubLinkEvent) -> Void) { core.hand(.open(self, events)) }

    public func send(_ request: HubRequest) {
        core.hand(.send(self, frame: WebSocketFrame.encode(.text, Array(request.json.utf8), mask: HubConnectionMachine.mask()), isVideo: false))
    }

    public func sendVideo(_ frame: HubVideoFrame) {
        core.hand(.send(self, frame: WebSocketFrame.encode(.binary, frame.encoded, mask: HubConnectionMachine.mask()), isVideo: true))
    }

    public func setSilent(_ silent: Bool) { core.hand(.silent(self, silent)) }

    public func close() { core.hand(.close(self)) }

    public func drop(_ reason: String) { core.hand(.drop(self, reason: reason)) }

}
