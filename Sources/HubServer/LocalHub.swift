import HubProtocol
import Timers
import WebServer
import WebSocket

/// A hub in this process (`tokencall test`'s, for a scenario with two people): the same decisions as the served hub
/// (`HubCore`), its clients links in the same process instead of WebSockets, its time a call's clock. On a leaping clock
/// its deadlines are the clock's too, so a scenario with a hub runs as fast and as exactly as one without. Its work runs
/// on the main actor, as timers of that clock, in the order the links were asked.
@MainActor
public final class LocalHub {
    /// How long a link waits before connecting again after the hub ended its connection (a client's first backoff).
    public nonisolated static let reconnectAfter = Duration.milliseconds(500)

    /// One link's standing with the hub.
    private struct Client {
        enum Phase {
            /// Opened, not connected yet.
            case connecting
            case connected(WebSocketClientID)
            /// The hub ended the connection while the link was silent: it learns so when it speaks again.
            case ended(reason: String)
            /// Closed by its user: nothing more.
            case closed
        }

        var phase = Phase.connecting
        var events: (@Sendable (HubLinkEvent) -> Void)?
        /// Set while the link's network is cut: nothing goes either way.
        var silent = false
        /// What came for it, and what it asked, while it was silent.
        var heldEvents: [HubLinkEvent] = []
        var heldRequests: [WebSocketMessage] = []
        /// The hub's silence limit, running while the link is silent.
        var silenceTimer: TimerQueue.ID?
    }

    private let core: HubCore
    nonisolated let timers: TimerQueue
    private var clients: [Client] = []
    private var byConnection: [WebSocketClientID: Int] = [:]
    private var lastConnection: UInt64 = 0
    private var tickTimer: TimerQueue.ID?

    /// A hub that checks tokens of `appID` and `appCertificate`, on `clock`, whose wall time is `unixTime`; tokens made
    /// on another wall are checked as `tokenWall` says.
    public init(appID: String, appCertificate: String, clock: any Clock<Duration>, unixTime: @escaping @Sendable () -> Double,
                tokenWall: HubServer.Configuration.OtherWall? = nil) {
        timers = TimerQueue(clock: clock)
        var config = HubServer.Configuration(appID: appID, appCertificate: appCertificate, unixTime: unixTime)
        config.elapsed = ElapsedClock(clock).now
        config.tokenWall = tokenWall
        core = HubCore(config)
        core.start(on: nil)
    }

    /// A new client's link to this hub, for an engine (`Simulation.hub`).
    public func link() -> any HubLink {
        clients.append(Client())
        return LocalHubLink(hub: self, number: clients.count - 1)
    }

    // MARK: What links ask, in their order

    func open(_ number: Int, events: @escaping @Sendable (HubLinkEvent) -> Void) {
        clients[number].events = events
        connect(number)
    }

    private func connect(_ number: Int) {
        guard case .connecting = clients[number].phase else { return }
        lastConnection += 1
        let connection = WebSocketClientID(lastConnection)
        clients[number].phase = .connected(connection)
        byConnection[connection] = number
        deliver(.connected, to: number)
        carryOut(core.opened(connection, query: [:]))
        if clients[number].silent { startSilence(number) }
    }

    func received(_ message: WebSocketMessage, from number: Int) {
        guard case .connected(let connection) = clients[number].phase else { return }
        guard !clients[number].silent else {
            if case .text = message { clients[number].heldRequests.append(message) }  // video waits for nobody
            return
        }
        carryOut(core.received(message, from: connection))
    }

    func setSilent(_ silent: Bool, _ number: Int) {
        guard clients[number].silent != silent else { return }
        clients[number].silent = silent
        if silent { return startSilence(number) }
        timers.cancel(clients[number].silenceTimer)
        clients[number].silenceTimer = nil
        let held = clients[number].heldEvents
        clients[number].heldEvents = []
        for event in held { deliver(event, to: number) }
        switch clients[number].phase {
        case .ended(let reason): lost(number, reason: reason)
        case .connected:
            let requests = clients[number].heldRequests
            clients[number].heldRequests = []
            for request in requests { received(request, from: number) }
        case .connecting, .closed: break
        }
    }

    func close(_ number: Int) {
        if case .connected(let connection) = clients[number].phase { end(connection, .closedByClient(.normal)) }
        clients[number].phase = .closed
        clients[number].events = nil
    }

    func drop(_ number: Int, reason: String) {
        guard case .connected(let connection) = clients[number].phase else { return }
        end(connection, .closedByClient(.policyViolation))
        lost(number, reason: reason)
    }

    // MARK: The hub's side

    /// While a link is silent the hub hears nothing from it: after `HubSilence.limit` it ends the connection, and the
    /// others hear the user dropped.
    private func startSilence(_ number: Int) {
        guard case .connected(let connection) = clients[number].phase else { return }
        clients[number].silenceTimer = timers.schedule(after: HubSilence.limit) { [weak self] in
            guard let self else { return }
            clients[number].silenceTimer = nil
            guard clients[number].silent, case .connected(connection) = clients[number].phase else { return }
            clients[number].phase = .ended(reason: "the hub heard nothing from it for \(HubSilence.limit)")
            end(connection, .silent(HubSilence.limit))
        }
    }

    /// The hub hears the connection ended.
    private func end(_ connection: WebSocketClientID, _ how: WebSocketEnd) {
        byConnection[connection] = nil
        carryOut(core.closed(connection, how))
    }

    /// The link learns its connection is gone, and connects again after `reconnectAfter`.
    private func lost(_ number: Int, reason: String) {
        clients[number].phase = .connecting
        clients[number].heldRequests = []
        deliver(.lost(reason: reason), to: number)
        timers.schedule(after: Self.reconnectAfter) { [weak self] in self?.connect(number) }
    }

    /// Does what the hub decided (the connections it closed heard of after the rest, as its host does), then plans its
    /// next deadline.
    private func carryOut(_ outputs: [HubOutput]) {
        var pending = outputs
        repeat {
            var ended: [(WebSocketClientID, WebSocketCloseCode)] = []
            for output in pending {
                switch output {
                case .notice(let notice, let connections):
                    for connection in connections { deliver(.notice(notice), toConnection: connection) }
                case .video(let bytes, let connections):
                    let event: HubLinkEvent
                    do { event = .video(try HubVideoFrame(decoding: bytes)) } catch {
                        guard let uid = HubVideoFrame.stampedUid(of: bytes) else { continue }
                        event = .unreadableVideo(uid: uid, problem: error.description)
                    }
                    for connection in connections { deliver(event, toConnection: connection) }
                case .close(let connection, let code, let reason):
                    guard let number = byConnection.removeValue(forKey: connection) else { continue }
                    ended.append((connection, code))
                    let why = "the hub closed the connection (\(code.rawValue)): \(reason)"
                    if clients[number].silent { clients[number].phase = .ended(reason: why) } else { lost(number, reason: why) }
                case .prove, .log:
                    break
                }
            }
            pending = ended.flatMap { core.closed($0, .closedByHost($1)) }
            if pending.isEmpty {
                let (more, wait) = core.tick()
                pending = more
                if more.isEmpty { plan(wait) }
            }
        } while !pending.isEmpty
    }

    private func plan(_ wait: Duration?) {
        timers.cancel(tickTimer)
        tickTimer = wait.map { wait in timers.schedule(after: wait) { [weak self] in self?.carryOut([]) } }
    }

    private func deliver(_ event: HubLinkEvent, toConnection connection: WebSocketClientID) {
        if let number = byConnection[connection] { deliver(event, to: number) }
    }

    private func deliver(_ event: HubLinkEvent, to number: Int) {
        if clients[number].silent {
            clients[number].heldEvents.append(event)
        } else {
            clients[number].events?(event)
        }
    }
}

/// A client's link to a `LocalHub`: each call becomes the hub's work on the main actor, in order, after the caller
/// returns (an engine calls its link under its lock, and hears it outside).
final class LocalHubLink: HubLink {
    private let hub: LocalHub
    private let number: Int

    init(hub: LocalHub, number: Int) {
        self.hub = hub
        self.number = number
    }

    func open(events: @escaping @Sendable (HubLinkEvent) -> Void) {
        later { hub, number in hub.open(number, events: events) }
    }

    func send(_ request: HubRequest) {
        let text = request.json
        later { hub, number in hub.received(.text(text), from: number) }
    }

    func sendVideo(_ frame: HubVideoFrame) {
        let bytes = frame.encoded
        later { hub, number in hub.received(.binary(bytes), from: number) }
    }

    func setSilent(_ silent: Bool) { later { hub, number in hub.setSilent(silent, number) } }
    func close() { later { hub, number in hub.close(number) } }
    func drop(_ reason: String) { later { hub, number in hub.drop(number, reason: reason) } }

    private func later(_ work: @escaping @MainActor (LocalHub, Int) -> Void) {
        let (hub, number) = (hub, number)
        hub.timers.schedule(after: .zero) { work(hub, number) }
    }
}
