import AccessToken
import ChannelEngine
import Foundation
import Timers
import TokenClient
import TokenServer

/// A call as an app runs it: fetch a token, join, renew on `tokenPrivilegeWillExpire`, recover on
/// `requestToken` — engine, token client and (with no URL given) an embedded token server, publishing one
/// ordered stream of events.
@MainActor
public final class CallSession {
    public struct Configuration: Sendable {
        public var channel = "test"
        public var uid: UInt = 0
        public var role: AgoraClientRole = .broadcaster
        /// The token server; nil runs the embedded one on 127.0.0.1.
        public var tokenURL: URL?
        public var requestShape: HTTPTokenProvider.Shape = .fetch
        /// The user's own credential for the token server, sent as `Authorization: Bearer`.
        public var bearer: String?
        public var requestTimeout: Duration = .seconds(10)
        /// With the embedded server: random unless given. With a URL: learned from the first token unless given.
        public var appID: String?
        /// With the embedded server: random unless given. With a URL: the signature goes unchecked unless given.
        public var appCertificate: String?
        /// Lifetime of the embedded server's tokens (40 s, as Agora's demo server, so a renewal shows soon).
        public var tokenLifetime: UInt32 = 40
        public var renewMethod: RenewMethod = .renew
        public var autoRenew = true
        public var remoteUsers = 2
        public var seed: UInt64 = 0
        public var clock: any Clock<Duration> = ContinuousClock()
        public var unixTime: @Sendable () -> Double = { Date().timeIntervalSince1970 }
        public var transport: any HTTPTransport = URLSessionTransport()

        public init() {}
    }

    public let configuration: Configuration
    /// Every event, in order, for one consumer (the headless printer or the call screen).
    public let events: AsyncStream<SessionEvent>
    /// Called synchronously with each event, before it goes into `events`.
    public var onEvent: ((SessionEvent) -> Void)?

    public private(set) var engine: AgoraRtcEngineKit?
    public internal(set) var renewMethod: RenewMethod
    public internal(set) var autoRenew: Bool
    /// Where tokens come from (the embedded server's URL when it runs).
    public private(set) var tokenURL: URL?
    public internal(set) var embeddedServer: TokenServer?
    /// How the embedded server was started (on its port), to start it again.
    var embeddedConfig: TokenServerConfig?
    /// Token fetches started, and the latency of the last one that succeeded.
    public internal(set) var fetchCount = 0
    public internal(set) var lastFetchLatency: Duration?
    public private(set) var ended = false

    let timers: TimerQueue
    private let continuation: AsyncStream<SessionEvent>.Continuation
    var cache: TokenCache?
    var fetching: FetchReason?
    var retryTimer: TimerQueue.ID?
    /// When the token in use expires, if it lives less than the warning lead (so it warned as soon as it was taken).
    var shortTokenExpiresAt: Int64?
    /// The renewal of such a token, halfway through its life.
    var shortRenewalTimer: TimerQueue.ID?
    /// A renewal the engine is still completing (after a rejoin or a renewal from failed).
    var pendingRenewal: (method: RenewMethod, token: String)?
    var appID: String?

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        renewMethod = configuration.renewMethod
        autoRenew = configuration.autoRenew
        timers = TimerQueue(clock: configuration.clock)
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// Starts the embedded server when no URL is given, then fetches a token and joins.
    public func start() throws {
        var certificate = configuration.appCertificate
        appID = configuration.appID
        if let url = configuration.tokenURL {
            tokenURL = url
        } else {
            let server = try TokenServer(TokenServerConfig(
                port: 0, appID: appID ?? Self.randomHex(), appCertificate: certificate ?? Self.randomHex(),
                tokenLifetime: configuration.tokenLifetime,
                unixTime: { [unixTime = configuration.unixTime] in UInt32(truncatingIfNeeded: Int64(unixTime())) }))
            embeddedServer = server
            var restart = server.config
            restart.port = server.port
            embeddedConfig = restart
            appID = server.config.appID
            certificate = server.config.appCertificate
            tokenURL = server.url
            emit(.note("embedded token server on \(server.url), \(configuration.tokenLifetime) s tokens"))
        }
        let provider = HTTPTokenProvider(url: tokenURL!, shape: configuration.requestShape, bearer: configuration.bearer,
                                         transport: configuration.transport, unixTime: configuration.unixTime)
        var policy = TokenCache.Policy()
        policy.deadline = configuration.requestTimeout
        let user = RTCUser.uid(UInt32(configuration.uid))
        let role: RTCRole = configuration.role == .broadcaster ? .publisher : .subscriber
        cache = TokenCache(provider: provider, request: TokenRequest(channel: configuration.channel, user: user, role: role, appID: appID),
                           policy: policy, clock: configuration.clock, unixTime: configuration.unixTime)
        self.certificate = certificate
        fetch(for: .join)
    }

    var certificate: String?

    /// Makes the engine once the App ID is known (given, embedded, or from the first token).
    func makeEngine(appID: String) -> AgoraRtcEngineKit {
        if let engine { return engine }
        let simulation = Simulation(appCertificate: certificate, clock: configuration.clock, unixTime: configuration.unixTime,
                                    seed: configuration.seed, remoteUsers: configuration.remoteUsers)
        let engine = AgoraRtcEngineKit(config: AgoraRtcEngineConfig(appId: appID, simulation: simulation), delegate: self)
        _ = engine.enableVideo()
        _ = engine.startPreview()
        _ = engine.setClientRole(configuration.role)
        self.engine = engine
        if certificate == nil { emit(.note("no App Certificate given: the engine checks everything but the signature")) }
        return engine
    }

    /// Leaves the channel, stops the embedded server and ends the stream.
    public func stop() {
        guard !ended else { return }
        timers.cancel(retryTimer)
        timers.cancel(shortRenewalTimer)
        let failed = engine.map { engine in
            engine.connectionState == .failed || Self.refused(engine.connectionState, engine.connectionChangedReason)
        } ?? true
        if let engine, engine.connectionState != .disconnected { _ = engine.leaveChannel() }
        ended = true
        emit(.sessionEnded(failed: failed))
        continuation.finish()
        embeddedServer?.stop()
    }

    /// Whether the network ended the call in a way no fetch mends: a refused join (a wrong token, App ID or channel), a
    /// ban, a lost link given up on. Failed for an expired token is not: a fresh token brings the call back.
    static func refused(_ state: AgoraConnectionState, _ reason: AgoraConnectionChangedReason) -> Bool {
        switch state {
        case .failed: reason != .tokenExpired
        case .disconnected: refusals.contains(reason)
        default: false
        }
    }

    private static let refusals: Set<AgoraConnectionChangedReason> = [
        .invalidAppId, .invalidChannelName, .invalidToken, .tokenExpired, .bannedByServer, .rejectedByServer, .joinFailed,
        .inconsistentAppId,
    ]

    /// The session's clock time since it started.
    public var now: Duration { timers.now }

    func emit(_ kind: SessionEvent.Kind) {
        guard !ended || { if case .sessionEnded = kind { true } else { false } }() else { return }
        let event = SessionEvent(time: timers.now, kind: kind)
        onEvent?(event)
        continuation.yield(event)
    }

    private static func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
