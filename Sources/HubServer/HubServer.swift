import AccessToken
import AgoraVocabulary
import HTTP1
import HubProtocol
import Sockets
import Synchronization
import WebServer
import WebSocket

/// The hub at `tokencall serve`'s `/hub`, as its WebSocket host runs it: what the host hears goes to the hub's core
/// (`HubCore`), and what the core decides is carried out on the host's outlet. Made for its host (`endpoint`), it lives
/// on the host's loop; the requests for its endpoint are let in by `HubAdmission`, on the server's threads.
public final class HubServer: WebSocketService {
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
        /// One owner per channel across hubs (`serve --redis`), made by the hub; nil: this hub serves every channel asked
        /// of it.
        public var leases: (@Sendable () -> any ChannelLeases)?
        /// Makes the hub act on what is due now, from any thread (tests move its time by hand).
        public let nudge = HubNudge()
        /// Tokens made on another wall than the hub's (`LocalHub` on a call that leaps, its tokens from a real server);
        /// nil: on the hub's.
        public var tokenWall: OtherWall?

        /// A wall tokens are made on that is not the hub's: the unix time they are checked against, and where a
        /// token's end falls on the hub's wall.
        public struct OtherWall: Sendable {
            public let unixTime: @Sendable () -> Double
            public let end: @Sendable (AgoraToken) -> Int64

            public init(unixTime: @escaping @Sendable () -> Double, end: @escaping @Sendable (AgoraToken) -> Int64) {
                self.unixTime = unixTime
                self.end = end
            }
        }

        public init(appID: String, appCertificate: String, unixTime: @escaping @Sendable () -> Double) {
            self.appID = appID
            self.appCertificate = appCertificate
            self.unixTime = unixTime
            let origin = ContinuousClock.now
            elapsed = { ContinuousClock.now - origin }
        }
    }

    /// The endpoint a hub is served at, `/hub` by default: a hub made for its host, its limits and its admission.
    public static func endpoint(_ config: Configuration, path: String = "/hub", limits: WebSocketLimits = endpointLimits)
        -> WebSocketEndpoint {
        WebSocketEndpoint(path: path, limits: limits, admission: HubAdmission().admit) { HubServer(config) }
    }

    let core: HubCore
    private var outlet: (any WebSocketOutlet)?

    public init(_ config: Configuration) {
        core = HubCore(config)
    }

    public func start(outlet: any WebSocketOutlet, wake: @escaping @Sendable () -> Void) {
        self.outlet = outlet
        core.config.nudge.connect(wake)
        core.start(on: outlet.loop)
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

    public func stopping(then done: @escaping () -> Void) {
        carryOut(core.stopping())
        core.finish(then: done)
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

/// Makes a hub act on what is due now, from any thread: its host's wake, once the hub started.
public final class HubNudge: Sendable {
    private let wake = Mutex<(@Sendable () -> Void)?>(nil)

    /// The hub's time moved (tests move it by hand): it acts on what is due.
    public func timeChanged() { wake.withLock { $0 }?() }

    func connect(_ wake: @escaping @Sendable () -> Void) { self.wake.withLock { $0 = wake } }
}

/// Which requests for the hub's endpoint may become connections (`WebSocketEndpoint.admit`): read on the server's
/// threads, from the request alone, so it reaches nothing of the hub.
public struct HubAdmission: Sendable {
    public init() {}

    /// Refuses a URL whose channel a balancer and the hub could read differently (`ChannelRoute`): nil to let it in,
    /// or why not.
    public func admit(_ request: HTTPRequest) -> String? {
        if case .failure(let refusal) = ChannelRoute.read(target: request.target) { return refusal.message }
        return nil
    }
}
