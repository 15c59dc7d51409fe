import AgoraVocabulary
import HTTP1
import HubProtocol
import Sockets
import TokenServer
import WebSocket

/// The hub at `tokencall serve`'s `/hub`, as its WebSocket host runs it: what the host hears goes to the hub's core
/// (`HubCore`), and what the core decides is carried out on the host's outlet. It runs on its host's one thread,
/// which makes every call to it, one at a time.
public final class HubServer: WebSocketService, @unchecked Sendable {
    /// The limits of the endpoint a hub is served at: the WebSocket host's, with the protocol's silence limit.
    public static let endpointLimits = WebSocketLimits(silenceLimit: HubSilence.limit)

    public struct Configuration: Sendable {
        public var appID: String
        public var appCertificate: String
        /// Unix time now, in seconds: what tokens are checked against (tests pass a time they move).
        public var unixTime: @Sendable () -> Double
        /// The hub's own time, how long since an origin, which its deadlines and rates are kept on: a
        /// `ContinuousClock`'s unless a test moves it.
        public var elapsed: @Sendable () -> Duration
        /// How long before a token's end the client is told (`tokenPrivilegeWillExpire`).
        public var willExpireLead: Duration = AgoraTokenTiming.willExpireLead
        /// A connection out of any channel this long is closed (1008): a client without a valid token holds no
        /// connection for long.
        public var outsideLimit: Duration = .seconds(60)
        /// One owner per channel across hubs (`serve --redis`); nil: this hub serves every channel asked of it.
        public var leases: (any ChannelLeases)?

        public init(appID: String, appCertificate: String, unixTime: @escaping @Sendable () -> Double) {
            self.appID = appID
            self.appCertificate = appCertificate
            self.unixTime = unixTime
            let origin = ContinuousClock.now
            elapsed = { ContinuousClock.now - origin }
        }
    }

    let core: HubCore
    private var outlet: (any WebSocketOutlet)?
    private var wake: @Sendable () -> Void = {}

    public init(_ config: Configuration) {
        core = HubCore(config)
    }

    /// Tells the hub that its time moved (tests move it by hand); it acts on what is due.
    public func timeChanged() { wake() }

    public func start(outlet: any WebSocketOutlet, wake: @escaping @Sendable () -> Void) {
        self.outlet = outlet
        self.wake = wake
        core.start(on: outlet.loop)
    }

    /// Refuses a URL whose channel a balancer and the hub could read differently (`ChannelRoute`).
    public func admit(_ request: HTTPRequest) -> String? {
        if case .failure(let refusal) = ChannelRoute.read(target: request.target) { return refusal.message }
        return nil
    }

    public func opened(_ client: WebSocketClientID, address: String, query: [String: String]) {
        carryOut(core.opened(client, query: query))
    }

    public func received(_ message: WebSocketMessage, from client: WebSocketClientID) {
        carryOut(core.received(message, from: client))
    }

    public func closed(_ client: WebSocketClientID, _ end: WebSocketEnd) {
        carryOut(core.closed(client, end))
    }

    public func tick() -> Duration? {
        let (outputs, wait) = core.tick()
        carryOut(outputs)
        return wait
    }

    public func stopping() {
        carryOut(core.stopping())
    }

    /// Does what the core decided, in its order: each notice written once, for all its clients.
    private func carryOut(_ outputs: [HubOutput]) {
        guard let outlet else { return }
        for output in outputs {
            switch output {
            case .notice(let notice, let clients): if !clients.isEmpty { outlet.send(text: notice.json, to: clients) }
            case .video(let frame, let clients): outlet.send(binary: frame, to: clients)
            case .close(let client, let code, let reason): outlet.close(client, code: code, reason: reason)
            case .prove(let client, let proven): outlet.prove(client, proven)
            case .log(let line): outlet.log(line)
            }
        }
    }
}
