import HubProtocol
import Sockets
import TLS
import WebSocket

/// A client's WebSocket connection to a hub (`Docs/hub-protocol.md`), ws:// or wss://, on a `HubClientLoop`: it connects, keeps the
/// connection alive with pings, takes a hub silent past the protocol's limit for gone, and reconnects by itself
/// after a drop. A handle any thread may call: it hands each call to the loop, whose thread owns the connection.
public final class HubConnection: HubLink {
    public let address: HubAddress
    private let driver: LoopBound<Driver>

    /// The most that may wait to be sent; a hub that takes none of it is gone.
    static let maxQueuedBytes = 256 * 1024

    /// A connection to `address`, served by `loop`; nothing happens until `open`. A wss:// hub's certificate is
    /// checked against `trust`.
    public init(address: HubAddress, loop: HubClientLoop, timing: HubTiming = .standard, trust: TLSTrust = .system) {
        self.address = address
        driver = LoopBound(handing: Driver(address: address, timing: timing, trust: trust, home: loop), to: loop.loop)
    }

    /// The hub the open connection reached (`HubConnectionMachine.hubName`); on the loop's thread only (in `events`).
    public var hubName: String? { driver.value.hubName }

    public func open(events: @escaping @Sendable (HubLinkEvent) -> Void) { hand { $0.begin(events: events) } }

    public func send(_ request: HubRequest) {
        let frame = WebSocketFrame.encode(.text, Array(request.json.utf8), mask: HubConnectionMachine.mask())
        hand { $0.enqueue(frame, isVideo: false) }
    }

    public func sendVideo(_ frame: HubVideoFrame) {
        let frame = WebSocketFrame.encode(.binary, frame.encoded, mask: HubConnectionMachine.mask())
        hand { $0.enqueue(frame, isVideo: true) }
    }

    public func setSilent(_ silent: Bool) { hand { $0.changeSilence(silent) } }

    public func close() { hand { $0.closeForGood() } }

    public func drop(_ reason: String) { hand { $0.abandon(reason) } }

    /// Runs `command` on the loop's thread, then settles the connection; dropped once the loop is stopping (its
    /// connections are closed).
    private func hand(_ command: @escaping @Sendable (Driver) -> Void) {
        let loop = driver.loop
        loop.execute { [driver] in
            guard !loop.isStopping else { return }
            command(driver.value)
            driver.value.settle()
        }
    }
}
