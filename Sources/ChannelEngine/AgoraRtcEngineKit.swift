import AccessToken
import Foundation
import HubProtocol
import Timers
import SeededRandom

/// A simulated `AgoraRtcEngineKit`: the same methods, return codes and callbacks, over a simulated network
/// whose time comes from an injected clock.
///
/// Nothing in it is isolated to an actor: its methods, class methods and initializer included, can be called from any
/// thread; callbacks arrive on the main actor, in order, after the call that caused them has returned (see
/// `AgoraRtcEngineKit+Delivery`). All state is guarded by `lock`; its connections and remote users are plain classes
/// reached only under it, which timers find again by id.
// Unchecked: every stored property is reached under `lock` (recursive: remote users call back in), which no compiler checks.
public final class AgoraRtcEngineKit: @unchecked Sendable {
    public var delegate: (any AgoraRtcEngineDelegate)? {
        get { locked { delegateReference } }
        set { locked { delegateReference = newValue } }
    }
    /// Every callback of the main connection as one value, for the simulator's own tests, which record through it
    /// while an app is the delegate; apps (and the call session) implement `delegate`. Called from the same delivery
    /// loop, just before the delegate.
    public var observer: (@MainActor (AgoraRtcEvent) -> Void)? {
        get { locked { observerClosure } }
        set { locked { observerClosure = newValue } }
    }
    weak var delegateReference: (any AgoraRtcEngineDelegate)?
    var observerClosure: (@MainActor (AgoraRtcEvent) -> Void)?
    /// Guards every stored property; recursive because remote users call back into the engine as they change.
    let lock = NSRecursiveLock()
    /// A copy of the configuration the engine was made with, so that the app's later changes to its own change nothing.
    let config: AgoraRtcEngineConfig
    var appId: String { config.appId ?? "" }
    /// What the simulated network knows, as the engine was made with it.
    public var simulation: Simulation { config.simulation }

    let timers: TimerQueue
    var random: SplitMix64
    var main: Channel?
    var exChannels: [Channel] = []
    /// Connections made so far: the next one's `id`.
    var channelsMade = 0
    var worlds: [String: RemoteUsers] = [:]
    /// The channel profile joins use: the config's, until `setChannelProfile(_:)` or a join's media options change it.
    var profile: AgoraChannelProfile
    var role: AgoraClientRole = .broadcaster
    var latencyLevel: AgoraAudienceLatencyLevelType = .ultraLowLatency
    var videoEnabled = false
    var previewing = false
    /// The audio module (`enableAudio`) and the local devices (`enableLocalAudio`, `enableLocalVideo`), all on by
    /// default as in the SDK, and the local states last reported (`+LocalMedia`).
    var audioEnabled = true
    var localAudioEnabled = true
    var localVideoEnabled = true
    var localAudioState: AgoraAudioLocalState = .stopped
    var localVideoState: AgoraVideoLocalState = .stopped
    /// The encoder configuration's size and frame rate (`setVideoEncoderConfiguration`), which local snapshots and
    /// `localVideoStats` have.
    var encoderSize = VideoSize(width: 960, height: 540)
    var encoderFrameRate = AgoraVideoFrameRate.fps15.rawValue
    /// The render frame rates asked for (`setLocalRenderTargetFps`, `setRemoteRenderTargetFps`), nil for the source's.
    var localRenderFps: Int?
    var remoteRenderFps: Int?
    /// Whether the local streams are muted for peers (`muteLocalAudioStream`, `muteLocalVideoStream`).
    var localAudioMuted = false
    var localVideoMuted = false
    /// The cloud proxy joins go through (`setCloudProxy`).
    var cloudProxy = AgoraCloudProxyType.noneProxy
    /// The timers of a running last-mile probe.
    var probeTimers: [TimerQueue.ID] = []
    /// Whether first remote frames are traced (`startMediaRenderingTracing`).
    var tracesRendering = false
    var localCanvas: AgoraRtcVideoCanvas?
    var remoteCanvases: [UInt: AgoraRtcVideoCanvas] = [:]
    /// Canvases set up with `setupRemoteVideoEx(_:connection:)` for connections other than the main one.
    var exCanvases: [ConnectionKey: [UInt: AgoraRtcVideoCanvas]] = [:]
    /// User accounts registered with `registerLocalUserAccount(_:appId:)` and the uids they got.
    var accounts: [String: UInt] = [:]
    /// The uid the engine (or the hub) gave the first main join with uid 0: later joins with 0 keep it, as the SDK does.
    var keptUid: UInt?
    var volumeIndicationInterval = 0
    var reportVad = false
    /// The one timer of the 2 s reports and the one of volume reports, while they run.
    var reportTimer: TimerQueue.ID?
    var volumeTimer: TimerQueue.ID?
    /// The remote user last reported by `activeSpeaker`.
    var activeSpeakerUid: UInt?
    /// The remote user talking in the simulated conversation.
    var talker: UInt?
    var qualityRandom: SplitMix64
    var volumeRandom: SplitMix64
    /// When the link went down, on the engine's clock; nil while it is up.
    var networkDownSince: Duration?
    var saidSignatureNotChecked = false
    /// The hub the main connection goes through, when the simulation has one.
    let hub: HubState?

    /// Callbacks waiting for the main actor, whether a delivery is scheduled for them, and whether one is running.
    var queue = CallbackQueue()
    var deliveryScheduled = false
    var delivering = false

    /// The simulator's own: an engine independent of the shared one, for tests and many clients in one process.
    /// Apps call `sharedEngine(with:delegate:)`. Reports the network's type (the machine's: LAN) once it is made.
    /// `isolation` is the caller's, which Swift fills in: on the main actor a test's stepped clock runs the engine's
    /// timers from the first step on.
    public init(config: AgoraRtcEngineConfig, delegate: (any AgoraRtcEngineDelegate)?, isolation: (any Actor)? = #isolation) {
        self.config = config.copy()
        profile = config.channelProfile
        delegateReference = delegate
        timers = TimerQueue(clock: config.simulation.clock, isolation: isolation)
        random = SplitMix64(seed: config.simulation.seed, stream: "engine")
        qualityRandom = SplitMix64(seed: config.simulation.seed, stream: "quality")
        volumeRandom = SplitMix64(seed: config.simulation.seed, stream: "volume")
        hub = config.simulation.hub.map(HubState.init)
        openHub()
        call { emit(.networkTypeChanged(.lan), on: nil) }
        if config.audioScenario != .default { setAudioScenario(config.audioScenario) }
    }

    deinit {
        hub?.link.close()
    }

    // MARK: State a screen shows

    /// The main connection's state.
    public var connectionState: AgoraConnectionState { locked { main?.state ?? .disconnected } }
    /// The reason of the main connection's last state change.
    public var connectionChangedReason: AgoraConnectionChangedReason { locked { main?.reason ?? .reasonLeaveChannel } }
    /// Channel and local uid of the main connection (the uid the engine assigned when joined with 0).
    public var connection: AgoraRtcConnection? {
        locked { main.map { AgoraRtcConnection(channelId: $0.connection.channelId, localUid: Int($0.connection.localUid)) } }
    }
    /// The role the main connection holds (through a hub, until the hub has made a change asked for), else the role
    /// the next join takes.
    public var clientRole: AgoraClientRole { locked { main.flatMap { $0.isActive ? $0.role : nil } ?? role } }
    /// The token the main connection holds.
    public var currentToken: String? { locked { main?.token } }
    /// When that token stops being accepted (unix seconds), if it expires.
    public var tokenExpiresAt: Int64? { locked { main?.tokenExpiresAt } }
    /// Remote users of the main connection, in the order they were announced.
    public var remoteUids: [UInt] { locked { Array(main?.announced ?? []) } }
    public var isNetworkInterrupted: Bool { locked { networkDownSince != nil } }

    /// The main connection's state, as the SDK's method gives it.
    public func getConnectionState() -> AgoraConnectionState { connectionState }

    /// The state of a multi-channel connection (the SDK's `getConnectionStateEx(_:)`).
    public func getConnectionStateEx(_ connection: AgoraRtcConnection) -> AgoraConnectionState {
        locked { exChannel(connection.key)?.state ?? .disconnected }
    }

    /// Broadcaster publishes, audience only watches; in live broadcasting peers see an audience leave.
    /// Outside a channel only a change to audience is reported, as Agora documents.
    @discardableResult
    public func setClientRole(_ newRole: AgoraClientRole) -> Int32 {
        call { setRole(newRole, latency: nil) }
    }

    /// `setClientRole(_:)` with the SDK's role options: in a channel a new latency level alone is reported too
    /// (`didClientRoleChanged` with the same role), with the options given.
    @discardableResult
    public func setClientRole(_ newRole: AgoraClientRole, options: AgoraClientRoleOptions?) -> Int32 {
        let latency = options?.audienceLatencyLevel
        return call { setRole(newRole, latency: latency) }
    }

    private func setRole(_ newRole: AgoraClientRole, latency: AgoraAudienceLatencyLevelType?) -> Int32 {
        let old = role
        let latencyChanged = latency.map { $0 != latencyLevel } ?? false
        role = newRole
        if let latency { latencyLevel = latency }
        if let main, main.isActive {
            changeRole(of: main, from: old, to: newRole, latency: latency, latencyChanged: latencyChanged)
        } else if old != newRole, newRole == .audience {
            emit(.didClientRoleChanged(old: old, new: newRole, latency: latency), on: main)
        }
        return 0
    }

    /// Through a hub the role changes when the hub says so (`confirmed`); the hub knows no latency levels, so a new
    /// level alone is reported at once.
    func changeRole(of channel: Channel, from old: AgoraClientRole, to new: AgoraClientRole, confirmed: Bool = false,
                    latency: AgoraAudienceLatencyLevelType? = nil, latencyChanged: Bool = false) {
        if usesHub(channel), !confirmed, old != new { return requestRole(new, on: channel) }
        channel.role = new
        if old != new || latencyChanged, channel.isInChannel {
            emit(.didClientRoleChanged(old: old, new: new, latency: latency), on: channel)
            if old != new, new == .audience, profile == .liveBroadcasting {
                emit(.simulatorNotice(.localUserOfflineForPeers(.becomeAudience)), on: channel)
            }
        }
        updateLocalMedia()
    }

    // MARK: Joining and leaving

    /// What a join's block gets: the channel, the uid and the milliseconds since the call.
    public typealias JoinSuccess = (_ channel: String, _ uid: UInt, _ elapsed: Int) -> Void
    /// What a leave's block gets: the statistics of the call.
    public typealias LeaveChannelBlock = (AgoraChannelStats) -> Void

    /// Joins a channel; uid 0 asks the engine to assign one. `joinSuccess`, when given, is called (on the main thread)
    /// instead of the delegate's `didJoinChannel`, as the header says. Returns 0, or -2, -17, -102, -121.
    @discardableResult
    public func joinChannel(byToken token: String?, channelId: String, uid: UInt,
                            mediaOptions: AgoraRtcChannelMediaOptions = AgoraRtcChannelMediaOptions(),
                            joinSuccess: JoinSuccess? = nil) -> Int32 {
        call { joinMain(token: token, channelId: channelId, uid: uid, account: nil, mediaOptions: mediaOptions, joinSuccess: joinSuccess) }
    }

    /// The SDK's older join, without media options; `info` is not passed to anyone, as the header says of it now.
    @discardableResult
    public func joinChannel(byToken token: String?, channelId: String, info: String?, uid: UInt,
                            joinSuccess: JoinSuccess? = nil) -> Int32 {
        joinChannel(byToken: token, channelId: channelId, uid: uid, joinSuccess: joinSuccess)
    }

    func joinMain(token: String?, channelId: String, uid: UInt, account: String?, mediaOptions: AgoraRtcChannelMediaOptions,
                  joinSuccess: JoinSuccess?) -> Int32 {
        if let code = Self.checkJoinArguments(channelId: channelId, uid: uid) { return code }
        if let main, main.isActive { return -Int32(AgoraErrorCode.joinChannelRejected.rawValue) }
        if let newRole = mediaOptions.roleIfSet { role = newRole }
        if let level = mediaOptions.latencyIfSet { latencyLevel = level }
        if let newProfile = mediaOptions.profileIfSet { profile = newProfile }
        // Through a hub, the hub assigns the first uid for 0.
        let localUid = uid != 0 ? uid : keptUid ?? (hub == nil ? assignUid() : 0)
        if uid == 0, hub == nil { keptUid = localUid }
        let channel = Channel(id: makeChannelID(), connection: ConnectionKey(channelId: channelId, localUid: localUid),
                              role: role, isMain: true, exDelegate: nil)
        channel.account = account
        channel.joinSuccess = joinSuccess
        main = channel
        beginJoin(channel, token: token)
        return 0
    }

    /// Leaves the main channel: state disconnected / leaveChannel, then `didLeaveChannelWith`; `leaveChannelBlock`
    /// gets the same statistics, after it.
    @discardableResult
    public func leaveChannel(_ leaveChannelBlock: LeaveChannelBlock? = nil) -> Int32 {
        call {
            if let main { leave(main, then: leaveChannelBlock) }
            return 0
        }
    }

    /// `leaveChannel(_:)` with the SDK's leave options, which have nothing to stop here.
    @discardableResult
    public func leaveChannel(_ options: AgoraLeaveChannelOptions, leaveChannelBlock: LeaveChannelBlock? = nil) -> Int32 {
        leaveChannel(leaveChannelBlock)
    }

    /// Joins another channel through its own connection and delegate. Returns 0, or -2, -17, -102, -121.
    @discardableResult
    public func joinChannelEx(byToken token: String?, connection: AgoraRtcConnection,
                              delegate: (any AgoraRtcEngineDelegate)?,
                              mediaOptions: AgoraRtcChannelMediaOptions = AgoraRtcChannelMediaOptions(),
                              joinSuccess: JoinSuccess? = nil) -> Int32 {
        let key = connection.key
        return call { joinEx(token: token, connection: key, delegate: delegate, mediaOptions: mediaOptions, joinSuccess: joinSuccess) }
    }

    private func joinEx(token: String?, connection key: ConnectionKey, delegate: (any AgoraRtcEngineDelegate)?,
                        mediaOptions: AgoraRtcChannelMediaOptions, joinSuccess: JoinSuccess?) -> Int32 {
        if let code = Self.checkJoinArguments(channelId: key.channelId, uid: key.localUid) { return code }
        guard key.localUid != 0 else { return -Int32(AgoraErrorCode.invalidUserId.rawValue) }
        let taken = (exChannels + [main].compactMap { $0 }).contains { $0.isActive && $0.connection == key }
        if taken { return -Int32(AgoraErrorCode.joinChannelRejected.rawValue) }
        exChannels.removeAll { $0.connection == key }
        let channel = Channel(id: makeChannelID(), connection: key, role: mediaOptions.roleIfSet ?? role, isMain: false,
                              exDelegate: delegate)
        channel.joinSuccess = joinSuccess
        exChannels.append(channel)
        beginJoin(channel, token: token)
        return 0
    }

    /// Updates a multi-channel connection's options, token included. Returns 0, or -8 when not in the channel.
    @discardableResult
    public func updateChannelEx(with mediaOptions: AgoraRtcChannelMediaOptions, connection: AgoraRtcConnection) -> Int32 {
        let key = connection.key
        return call {
            guard let channel = exChannel(key), channel.acceptsUpdates else {
                return -Int32(AgoraErrorCode.invalidState.rawValue)
            }
            return update(channel, with: mediaOptions)
        }
    }

    /// Leaves a multi-channel connection; `leaveChannelBlock` gets its statistics.
    @discardableResult
    public func leaveChannelEx(_ connection: AgoraRtcConnection, leaveChannelBlock: LeaveChannelBlock? = nil) -> Int32 {
        let key = connection.key
        return call {
            if let channel = exChannel(key) { leave(channel, then: leaveChannelBlock) }
            exChannels.removeAll { $0.connection == key }
            exCanvases[key] = nil
            return 0
        }
    }

    /// `leaveChannelEx(_:leaveChannelBlock:)` with the SDK's leave options, which have nothing to stop here.
    @discardableResult
    public func leaveChannelEx(_ connection: AgoraRtcConnection, options: AgoraLeaveChannelOptions,
                               leaveChannelBlock: LeaveChannelBlock? = nil) -> Int32 {
        leaveChannelEx(connection, leaveChannelBlock: leaveChannelBlock)
    }

    func exChannel(_ key: ConnectionKey) -> Channel? {
        exChannels.first { $0.connection == key }
    }

    /// The connection `id` names, while the engine still has it.
    func channel(_ id: Int) -> Channel? {
        main?.id == id ? main : exChannels.first { $0.id == id }
    }

    private func makeChannelID() -> Int {
        channelsMade += 1
        return channelsMade
    }

    /// A join's checks of its arguments, as the API makes them: -102 for a channel name outside Agora's rules, -121
    /// for a uid over 32 bits.
    static func checkJoinArguments(channelId: String, uid: UInt) -> Int32? {
        do throws(TokenError) {
            try AgoraID.validateChannelName(channelId)
        } catch {
            return -Int32(AgoraErrorCode.invalidChannelId.rawValue)
        }
        if uid > UInt(UInt32.max) { return -Int32(AgoraErrorCode.invalidUserId.rawValue) }
        return nil
    }

    /// Whether a connection names a channel and uid a join would take.
    static func isJoinable(_ key: ConnectionKey) -> Bool {
        checkJoinArguments(channelId: key.channelId, uid: key.localUid) == nil
    }

    func assignUid() -> UInt {
        UInt(UInt32.random(in: 100_000...999_999_999, using: &random))
    }

    /// Connecting now; the network answers after the join latency. A rejoin (renewing out of failed)
    /// says `renewToken` and ends in `rejoinSuccess`.
    func beginJoin(_ channel: Channel, token: String?, rejoining: Bool = false) {
        channel.pendingToken = token
        channel.joinStartedAt = timers.now
        setState(.connecting, rejoining ? .reasonRenewToken : .reasonConnecting, on: channel)
        if usesHub(channel) { return presentJoin(channel) }
        let answered = timers.now + config.simulation.joinLatency
        channel.joinTimer = timers.schedule(at: answered, holdingClock: true) { [weak self, id = channel.id] in
            self?.fire(on: id) { self?.completeJoin($0, rejoining: rejoining) }
        }
    }

    /// Cancels every timer of the connection: token, link, video and join.
    func stopTimers(of channel: Channel) {
        timers.cancel(channel.allTimers)
        channel.tokenTimers = []
        channel.linkTimers = []
        channel.videoTimers = []
        channel.joinTimer = nil
    }

    /// The network's answer to a join (or to a renewal after expiry, when `rejoining`).
    func completeJoin(_ channel: Channel, rejoining: Bool) {
        channel.joinTimer = nil
        if networkDownSince != nil {
            // The SDK's warning for a channel it cannot look up (104); it keeps trying.
            if !channel.joinWaitsForNetwork { emit(.didOccurWarning(.lookupChannelTimeout), on: channel) }
            channel.joinWaitsForNetwork = true
            return
        }
        channel.joinWaitsForNetwork = false
        let token = channel.pendingToken
        let verdict = evaluate(token, for: channel)
        switch verdict {
        case .failure(let rejection):
            setState(rejection.state, rejection.reason, on: channel)
            emit(.didOccurError(rejection.error), on: channel)
            detach(channel)
        case .success(let accepted):
            setState(.connected, rejoining ? .reasonRejoinSuccess : .reasonJoinSuccess, on: channel)
            if channel.joinedAt == nil { channel.joinedAt = timers.now }
            if !rejoining {
                // A join with a user account registers it, as registerLocalUserAccount does (Agora's docs of both).
                if let account = channel.account {
                    emit(.didLocalUserRegistered(account: account, uid: channel.connection.localUid), on: channel)
                }
                emit(.didJoinChannel(channel: channel.connection.channelId, uid: channel.connection.localUid,
                                     elapsed: elapsedMilliseconds(since: channel.joinStartedAt)), on: channel)
                if let proxy = connectedProxy {
                    emit(.didProxyConnected(channel: channel.connection.channelId, uid: channel.connection.localUid,
                                            proxyType: proxy, elapsed: elapsedMilliseconds(since: channel.joinStartedAt)),
                         on: channel)
                }
            }
            install(accepted, on: channel)
            attach(channel)
        }
        if channel.pendingRenewResult, let token {
            let code: AgoraRenewTokenErrorCode = switch verdict {
            case .success: .success
            case .failure(let rejection): rejection.renewCode
            }
            emit(.renewTokenResult(token: token, code: code), on: channel)
        }
        channel.pendingToken = nil
        channel.pendingRenewResult = false
    }

    /// Leaves the connection, if active; `block` gets its statistics after the leave's last callback.
    func leave(_ channel: Channel, then block: LeaveChannelBlock? = nil) {
        guard channel.isActive else { return }
        let stats = statistics(of: channel)
        let wasIn = channel.isInChannel
        stopTimers(of: channel)
        channel.joinWaitsForNetwork = false
        channel.pendingRenewResult = false
        channel.token = nil
        channel.tokenExpiresAt = nil
        channel.tokenExpiry = nil
        detach(channel)
        setState(.disconnected, .reasonLeaveChannel, on: channel)
        var then: (() -> Void)?
        if let block { then = { block(stats) } }
        emit(.didLeaveChannel(channel: channel.connection.channelId, uid: channel.connection.localUid, stats: stats),
             on: channel, then: wasIn ? nil : then)
        if wasIn { emit(.simulatorNotice(.localUserOfflineForPeers(.quit)), on: channel, then: then) }
    }

    func statistics(of channel: Channel) -> AgoraChannelStats {
        var stats = AgoraChannelStats()
        if let joinedAt = channel.joinedAt {
            stats.duration = UInt(max(0, (timers.now - joinedAt).wholeMilliseconds / 1000))
        }
        if channel.isInChannel { stats.userCount = UInt(channel.announced.count + 1) }
        return stats
    }

    // MARK: Events

    func setState(_ state: AgoraConnectionState, _ reason: AgoraConnectionChangedReason, on channel: Channel) {
        channel.state = state
        channel.reason = reason
        // A role change a hub never made ends with the connection: the next join takes the role held.
        if channel.isMain, state == .disconnected { role = channel.role }
        emit(.connectionStateChanged(state, reason: reason), on: channel)
        if channel.isMain { updateLocalMedia() }
        updateReportTimer()
        updateVolumeTimer()
    }

    func elapsedMilliseconds(since start: Duration) -> Int {
        Int((timers.now - start).wholeMilliseconds)
    }
}
