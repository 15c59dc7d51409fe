import AccessToken
import ChannelEngine
import Foundation
import Timers
import TokenClient

/// A call as an app runs it: fetch a token, join, renew on `tokenPrivilegeWillExpire`, recover on
/// `requestToken` — engine and token client, with tokens from a `TokenSource`, publishing one ordered stream of events.
@MainActor
public final class CallSession {
    public struct Configuration: Sendable {
        public var channel = "test"
        public var uid: UInt = 0
        public var role: AgoraClientRole = .broadcaster
        public var requestTimeout: Duration = .seconds(10)
        /// The App ID: given, else the app's own server's, else learned from the first token.
        public var appID: String?
        /// The App Certificate the engine checks signatures with: given, else the app's own server's, else unchecked.
        public var appCertificate: String?
        public var renewMethod: RenewMethod = .renew
        public var autoRenew = true
        public var remoteUsers = 2
        public var seed: UInt64 = 0
        public var clock: any Clock<Duration> = ContinuousClock()
        public var unixTime: @Sendable () -> Double = { Date().timeIntervalSince1970 }

        public init() {}
    }

    public let configuration: Configuration
    /// Where tokens come from (the first pasted token is dropped once used).
    public internal(set) var tokens: TokenOrigin
    /// Every event, in order, for one consumer (the headless printer or the call screen).
    public let events: AsyncStream<SessionEvent>
    /// Called synchronously with each event, before it goes into `events`.
    public var onEvent: ((SessionEvent) -> Void)?

    public private(set) var engine: AgoraRtcEngineKit?
    public internal(set) var renewMethod: RenewMethod
    public internal(set) var autoRenew: Bool
    /// Token fetches started, and the latency of the last one that succeeded.
    public internal(set) var fetchCount = 0
    public internal(set) var lastFetchLatency: Duration?
    public private(set) var ended = false
    /// Leaving on `stop()`: the session ends once the engine has said it left.
    var stopping = false

    let timers: TimerQueue
    private let continuation: AsyncStream<SessionEvent>.Continuation
    var cache: TokenCache?
    var tokenPhase = TokenPhase.idle
    /// A renewal the engine is still completing (after a rejoin or a renewal from failed).
    var pendingRenewal: (method: RenewMethod, token: String)?
    var appID: String?

    public convenience init(_ configuration: Configuration, tokenSource: TokenSource) {
        self.init(configuration, tokens: .server(tokenSource, first: nil))
    }

    public init(_ configuration: Configuration, tokens: TokenOrigin) {
        self.configuration = configuration
        self.tokens = tokens
        renewMethod = configuration.renewMethod
        autoRenew = configuration.autoRenew
        timers = TimerQueue(clock: configuration.clock)
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// Fetches a token (or takes the pasted one) and joins.
    public func start() {
        let own = tokens.ownServer
        appID = configuration.appID ?? own?.appID
        certificate = configuration.appCertificate ?? own?.appCertificate
        switch tokens {
        case .server(let source, _):
            if let own { emit(.note("embedded token server on \(source.url), \(own.tokenLifetime) s tokens")) }
            var policy = TokenCache.Policy()
            policy.deadline = configuration.requestTimeout
            cache = TokenCache(provider: source.provider, request: tokenRequest, policy: policy, clock: configuration.clock,
                               unixTime: configuration.unixTime)
        case .byHand:
            emit(.note("no token server: each next token is pasted by hand"))
        }
        fetch(for: .join)
    }

    /// What this call's tokens must be for.
    var tokenRequest: TokenRequest {
        TokenRequest(channel: configuration.channel, user: .uid(UInt32(configuration.uid)),
                     role: configuration.role == .broadcaster ? .publisher : .subscriber, appID: appID)
    }

    var certificate: String?

    /// Makes the engine once the App ID is known (given, embedded, or from the first token).
    func makeEngine(appID: String) -> AgoraRtcEngineKit {
        if let engine { return engine }
        let simulation = Simulation(appCertificate: certificate, clock: configuration.clock, unixTime: configuration.unixTime,
                                    seed: configuration.seed, remoteUsers: configuration.remoteUsers)
        let engine = AgoraRtcEngineKit(config: AgoraRtcEngineConfig(appId: appID, simulation: simulation), delegate: nil)
        engine.observer = { [weak self] in self?.record($0) }
        engine.enableVideo()
        engine.startPreview()
        self.engine = engine
        if certificate == nil { emit(.note("no App Certificate given: the engine checks everything but the signature")) }
        return engine
    }

    /// Leaves the channel and ends the stream once the engine's leave callbacks have arrived.
    public func stop() {
        guard !ended, !stopping else { return }
        cancelPlannedFetch()
        let failed = engine.map { engine in
            engine.connectionState == .failed || Self.refused(engine.connectionState, engine.connectionChangedReason)
        } ?? true
        guard let engine, engine.connectionState != .disconnected else { return end(failed: failed) }
        stopping = true
        engine.leaveChannel { [weak self] _ in self?.end(failed: failed) }
    }

    private func end(failed: Bool) {
        ended = true
        emit(.sessionEnded(failed: failed))
        continuation.finish()
    }

    /// Whether the network ended the call in a way no fetch mends: a refused join (a wrong token, App ID or channel), a
    /// ban, a lost link given up on. Failed for an expired token is not: a fresh token brings the call back.
    static func refused(_ state: AgoraConnectionState, _ reason: AgoraConnectionChangedReason) -> Bool {
        switch state {
        case .failed: reason != .reasonTokenExpired
        case .disconnected: refusals.contains(reason)
        default: false
        }
    }

    private static let refusals: Set<AgoraConnectionChangedReason> = [
        .reasonInvalidAppId, .reasonInvalidChannelName, .reasonInvalidToken, .reasonTokenExpired, .reasonBannedByServer,
        .reasonRejectedByServer, .reasonJoinFailed,
    ]

    /// The session's clock time since it started.
    public var now: Duration { timers.now }

    func emit(_ kind: SessionEvent.Kind) {
        guard !ended || { if case .sessionEnded = kind { true } else { false } }() else { return }
        let event = SessionEvent(time: timers.now, kind: kind)
        onEvent?(event)
        continuation.yield(event)
    }
}
