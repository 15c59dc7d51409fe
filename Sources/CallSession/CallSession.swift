import AccessToken
import ChannelEngine
import Foundation
import HubProtocol
import PrintableText
import SeededRandom
import Synchronization
import Timers
import TokenClient

/// A call as an app runs it: fetch a token, join, renew on `tokenPrivilegeWillExpire`, recover on
/// `requestToken` — engine and token client, with tokens from a `TokenSource`, publishing one ordered series of events.
@MainActor
public final class CallSession {
    public struct Configuration: Sendable {
        public var channel = "test"
        /// Who joins: a uid (0 lets the engine pick one) or a string user account (the engine gives it a uid).
        public var user: RTCUser = .uid(0)
        /// The user as a screen names it before the join: the uid asked for (0 until the engine assigns one) and the
        /// account, when it is one.
        public var uidAndAccount: (uid: UInt, account: String?) {
            switch user {
            case .uid(let uid): (UInt(uid), nil)
            case .account(let account): (0, account)
            }
        }
        public var role: AgoraClientRole = .broadcaster
        /// The overall deadline of one token request, on `networkClock`.
        public var requestTimeout: Duration = .seconds(10)
        /// The network's clock, which a token request's deadline and the wait before retrying a failed one run on: the
        /// real one, while `clock` may run fast or pause; nil: `clock`.
        public var networkClock: (any Clock<Duration>)?
        /// The App ID: given, else the app's own server's, else learned from the first token.
        public var appID: String?
        /// The App Certificate the engine checks signatures with: given, else the app's own server's, else unchecked.
        public var appCertificate: String?
        public var renewMethod: RenewMethod = .renew
        /// The SDK whose words the call is shown in and whose sequence it follows where SDKs differ (`--sdk`).
        public var voice = SDKVoice.standard
        public var autoRenew = true
        public var remoteUsers = 2
        public var seed: UInt64 = 0
        public var clock: any Clock<Duration> = ContinuousClock()
        public var unixTime: @Sendable () -> Double = { Date().timeIntervalSince1970 }
        /// The wall the call's tokens are made on: `unixTime`'s, or a real one `clock` has left (`TokenWall`).
        public var tokenWall = TokenWall.call
        public var engine = EngineInstance.own
        /// The hub the channel is on (`join --hub`); nil: everyone else in the channel is simulated.
        public var hub: Hub?

        public init() {}

        /// Seconds since 1970 on the wall the call's tokens are checked against (`TokenWall`).
        public var tokenUnixTime: @Sendable () -> Double {
            let (wall, unixTime) = (tokenWall, unixTime)
            return { wall.unixTime(call: unixTime()) }
        }
    }

    /// A hub the call goes through: the engine's link to it, and its address as the screen names it.
    public struct Hub: Sendable {
        /// Without its query, which may hold a credential.
        public let address: String
        public var link: any HubLink

        public init(address: String, link: any HubLink) {
            self.address = address.urlWithoutCredentials
            self.link = link
        }
    }

    /// How the session gets its engine.
    public enum EngineInstance: Sendable {
        /// `AgoraRtcEngineKit.sharedEngine(with:delegate:)`, as apps get it, destroyed when the session ends: one
        /// session at a time per process (`tokencall join`).
        case shared
        /// An engine of the session's own (the simulator's init): tests, and many sessions in one process.
        case own
    }

    /// How often the engine reports volumes, and with them the active speaker.
    static let volumeReportInterval = 1000

    public let configuration: Configuration
    /// Where tokens come from (the first pasted token is dropped once used).
    public internal(set) var tokens: TokenOrigin
    /// Those called with each event, in order, as it happens, in the order they began to observe (a recorder, then the
    /// headless printer or the call screen): nothing is queued for them, so an observer that takes its time slows the
    /// delivery of the engine's callbacks, whose queue the engine bounds, rather than letting events pile up.
    private var observers: [(SessionEvent) -> Void] = []

    public private(set) var engine: AgoraRtcEngineKit?
    public internal(set) var renewMethod: RenewMethod
    public internal(set) var autoRenew: Bool
    /// Requests sent to the token server, and the latency of the last one answered.
    public internal(set) var fetchCount = 0
    /// Requests the token server answered: with a token, or with a refusal or an answer that holds none.
    public internal(set) var answeredFetchCount = 0
    public internal(set) var lastFetchLatency: Duration?
    public private(set) var ended = false
    /// Leaving on `stop()`: the session ends once the engine has said it left.
    var stopping = false

    let timers: TimerQueue
    /// Timers on the network's clock (`Configuration.networkClock`): retries after a failed fetch.
    let networkTimers: TimerQueue
    /// Those waiting in `untilEnded`.
    private var endWaiters: [CheckedContinuation<Void, Never>] = []
    /// Sends the token requests, each with its deadline, and chooses the wait after a failure.
    var cache: TokenCache?
    var tokenPhase = TokenPhase.idle
    /// A renewal handed to the engine and not answered yet: the engine's answer completes it (`renewalTaken`) or
    /// ends it (`rejected`), the same way with or without a hub; through `renewToken` (`viaRenewToken`) that answer is
    /// `renewTokenResult`, so `tokenRenewed` always follows it.
    var pendingRenewal: (method: RenewMethod, token: String, viaRenewToken: Bool)?
    var appID: String?
    /// The token last handed to the engine, to say why the engine refused it, and whether a note said that before it
    /// was handed over (a pasted token's warning, a fetched token's flaw).
    var delivered: (token: String, forewarned: Bool)?
    /// A renewal's token ran out before its rejoin was answered, and the call has not been connected since: one more
    /// that does is not fetched again.
    var renewalRanOut = false
    /// The connections the session asked to leave, oldest first: `didLeaveChannelWith` answers them in order.
    var leaving: [AgoraRtcConnection] = []
    /// The views of the canvases set up: the local user's, and each remote user's while they are in the channel.
    public let localTile = VideoTile(uid: 0)
    public internal(set) var remoteTiles: [UInt: VideoTile] = [:]
    /// The network quality last published for each user (0: the local one).
    var lastQuality: [UInt: (tx: AgoraNetworkQuality, rx: AgoraNetworkQuality)] = [:]

    public convenience init(_ configuration: Configuration, tokenSource: TokenSource) {
        self.init(configuration, tokens: .server(tokenSource, first: nil))
    }

    public init(_ configuration: Configuration, tokens: TokenOrigin) {
        self.configuration = configuration
        self.tokens = tokens
        renewMethod = configuration.renewMethod
        autoRenew = configuration.autoRenew
        timers = TimerQueue(clock: configuration.clock)
        networkTimers = configuration.networkClock.map { TimerQueue(clock: $0) } ?? timers
    }

    /// Fetches a token (or takes the pasted one) and joins.
    public func start() {
        let own = tokens.ownServer
        appID = configuration.appID ?? own?.appID
        certificate = configuration.appCertificate ?? own?.appCertificate
        switch tokens {
        case .server(let source, _):
            if let own {
                emit(.note("embedded token server on \(source.url), \(own.tokenLifetime) s tokens"))
                if let mistake = own.mistakes?.current() { emit(.mistakeChanged(mistake)) }
            }
            var policy = TokenCache.Policy()
            policy.deadline = configuration.requestTimeout
            policy.networkClock = configuration.networkClock
            policy.executor = MainQueueExecutor.shared
            // The backoff's jitter from the seed, so that the same seed and the same answers give the same retries.
            let jitter = Mutex(SplitMix64(seed: configuration.seed, stream: "token backoff"))
            policy.jitter = { jitter.withLock { Double.random(in: 0.5...1, using: &$0) } }
            cache = TokenCache(provider: source.provider, request: tokenRequest, policy: policy, clock: configuration.clock,
                               unixTime: configuration.tokenUnixTime)
        case .byHand:
            emit(.note("no token server: each next token is pasted by hand"))
        }
        fetch(for: .join)
    }

    /// What this call's tokens must be for.
    var tokenRequest: TokenRequest {
        TokenRequest(channel: configuration.channel, user: configuration.user,
                     role: configuration.role == .broadcaster ? .publisher : .subscriber, appID: appID)
    }

    var certificate: String?

    /// Makes the engine once the App ID is known (given, embedded, or from the first token).
    func makeEngine(appID: String) -> AgoraRtcEngineKit {
        if let engine { return engine }
        var simulation = Simulation(appCertificate: certificate, clock: configuration.clock, unixTime: configuration.unixTime,
                                    seed: configuration.seed, remoteUsers: configuration.remoteUsers, hub: configuration.hub?.link)
        simulation.tokenWall = configuration.tokenWall
        let config = AgoraRtcEngineConfig(appId: appID, simulation: simulation)
        let engine = switch configuration.engine {
        case .shared: AgoraRtcEngineKit.sharedEngine(with: config, delegate: self)
        case .own: AgoraRtcEngineKit(config: config, delegate: self)
        }
        engine.enableVideo()
        engine.startPreview()
        engine.setupLocalVideo(localTile.canvas)
        engine.enableAudioVolumeIndication(Self.volumeReportInterval, smooth: 3, reportVad: true)
        self.engine = engine
        if let hub = configuration.hub {
            emit(.note("the channel is on the hub at \(hub.address), which checks every token"))
        } else if certificate == nil {
            emit(.note("no App Certificate given: the engine checks everything but the signature"))
        }
        return engine
    }

    /// Calls `observer` with every event from now on, after the observers there already are.
    public func observe(_ observer: @escaping (SessionEvent) -> Void) {
        observers.append(observer)
    }

    /// Returns once the session has ended (`sessionEnded` has gone to every observer).
    public func untilEnded() async {
        guard !ended else { return }
        await withCheckedContinuation { endWaiters.append($0) }
    }

    /// Leaves the channel and ends the session once the engine's leave callbacks have arrived.
    public func stop() {
        guard !ended, !stopping else { return }
        cancelPlannedFetch()
        let failed = engine.map { engine in
            engine.connectionState == .failed || Self.refused(engine.connectionState, engine.connectionChangedReason)
        } ?? true
        guard let engine, engine.connectionState != .disconnected else { return end(failed: failed) }
        stopping = true
        leaveChannel(engine) { [weak self] _ in self?.end(failed: failed) }
    }

    /// Leaves the engine's channel, remembering which connection the leave callback will be about.
    func leaveChannel(_ engine: AgoraRtcEngineKit, then block: (@MainActor (AgoraChannelStats) -> Void)? = nil) {
        if engine.connectionState != .disconnected, let connection = engine.connection { leaving.append(connection) }
        // The engine's blocks are plain ones, as the SDK's are; it calls them on the main actor.
        engine.leaveChannel(block.map { block in { stats in MainActor.assumeIsolated { block(stats) } } })
    }

    /// The picture to draw in a user's tile: the engine's, for a user whose canvas holds the session's tile; nil for
    /// anyone else.
    public func video(forUid uid: UInt) -> VideoPicture? {
        guard let engine else { return nil }
        // Out of a channel the screen knows the local user by the configured uid, or 0 (an account's uid is not known yet).
        let configured: UInt = if case .uid(let number) = configuration.user { UInt(number) } else { 0 }
        let local = engine.connection.map { UInt($0.localUid) == uid } ?? (uid == configured)
        let tile = local ? localTile : remoteTiles[uid]
        guard let tile, engine.videoCanvas(forUid: tile.uid)?.view === tile else { return nil }
        return engine.picture(forUid: uid)
    }

    private func end(failed: Bool) {
        if configuration.engine == .shared { AgoraRtcEngineKit.destroy() }
        ended = true
        emit(.sessionEnded(failed: failed))
        endWaiters.forEach { $0.resume() }
        endWaiters = []
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

    /// Where `expiresAt`, written in `token`, falls on the call's wall, the token arriving now.
    func callTime(of expiresAt: Int64, in token: String) -> Int64 {
        guard let parsed = try? AgoraToken(parsing: token) else { return expiresAt }
        return Int64(configuration.tokenWall.callTime(of: expiresAt, in: parsed, arrivingAt: configuration.unixTime()).rounded(.down))
    }

    func emit(_ kind: SessionEvent.Kind) {
        guard !ended || { if case .sessionEnded = kind { true } else { false } }() else { return }
        let event = SessionEvent(time: timers.now, kind: kind)
        for observer in observers { observer(event) }
    }
}
