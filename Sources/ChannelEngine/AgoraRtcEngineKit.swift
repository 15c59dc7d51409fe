import AccessToken
import Foundation
import HubProtocol
import Timers
import SeededRandom

/// A simulated `AgoraRtcEngineKit`: the same methods, return codes and callbacks, over a simulated network
/// whose time comes from an injected clock.
///
/// Its methods can be called from any thread; callbacks arrive on the main actor, in order, after the call that
/// caused them has returned (see `AgoraRtcEngineKit+Delivery`). All state is guarded by `lock`.
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
    var worlds: [String: RemoteUsers] = [:]
    var role: AgoraClientRole = .broadcaster
    var videoEnabled = false
    var previewing = false
    var localCanvas: AgoraRtcVideoCanvas?
    var remoteCanvases: [UInt: AgoraRtcVideoCanvas] = [:]
    /// User accounts registered with `registerLocalUserAccount(_:appId:)` and the uids they got.
    var accounts: [String: UInt] = [:]
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
    /// Apps call `sharedEngine(with:delegate:)`.
    @MainActor
    public init(config: AgoraRtcEngineConfig, delegate: (any AgoraRtcEngineDelegate)?) {
        self.config = config.copy()
        delegateReference = delegate
        timers = TimerQueue(clock: config.simulation.clock)
        random = SplitMix64(seed: config.simulation.seed, stream: "engine")
        qualityRandom = SplitMix64(seed: config.simulation.seed, stream: "quality")
        volumeRandom = SplitMix64(seed: config.simulation.seed, stream: "volume")
        hub = config.simulation.hub.map(HubState.init)
        openHub()
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
    public var clientRole: AgoraClientRole { locked { role } }
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
        call {
            let old = role
            role = newRole
            if let main, main.isActive {
                changeRole(of: main, from: old, to: newRole)
            } else if old != newRole, newRole == .audience {
                emit(.didClientRoleChanged(old: old, new: newRole), on: main)
            }
            return 0
        }
    }

    /// `setClientRole(_:)` with the SDK's role options, which the simulator accepts and does not use.
    @discardableResult
    public func setClientRole(_ newRole: AgoraClientRole, options: AgoraClientRoleOptions?) -> Int32 {
        setClientRole(newRole)
    }

    /// Through a hub the role changes when the hub says so (`confirmed`).
    func changeRole(of channel: Channel, from old: AgoraClientRole, to new: AgoraClientRole, confirmed: Bool = false) {
        if usesHub(channel), !confirmed { return requestRole(new, on: channel) }
        channel.role = new
        guard old != new, channel.isInChannel else { return }
        emit(.didClientRoleChanged(old: old, new: new), on: channel)
        if new == .audience, config.channelProfile == .liveBroadcasting {
            emit(.simulatorNotice(.localUserOfflineForPeers(.becomeAudience)), on: channel)
        }
    }

    // MARK: Joining and leaving

    /// Joins a channel; uid 0 asks the engine to assign one. `joinSuccess`, when given, is called instead of the
    /// delegate's `didJoinChannel`. Returns 0, or -2, -17, -102, -121.
    @discardableResult
    public func joinChannel(byToken token: String?, channelId: String, uid: UInt,
                            mediaOptions: AgoraRtcChannelMediaOptions = AgoraRtcChannelMediaOptions(),
                            joinSuccess: (@MainActor (_ channel: String, _ uid: UInt, _ elapsed: Int) -> Void)? = nil) -> Int32 {
        call { joinMain(token: token, channelId: channelId, uid: uid, account: nil, mediaOptions: mediaOptions, joinSuccess: joinSuccess) }
    }

    func joinMain(token: String?, channelId: String, uid: UInt, account: String?, mediaOptions: AgoraRtcChannelMediaOptions,
                  joinSuccess: (@MainActor (String, UInt, Int) -> Void)?) -> Int32 {
        if let code = checkJoinArguments(channelId: channelId, uid: uid) { return code }
        if let main, main.isActive { return -Int32(AgoraErrorCode.joinChannelRejected.rawValue) }
        if let newRole = mediaOptions.clientRoleType { role = newRole }
        // Through a hub, the hub assigns the uid for 0.
        let localUid = uid == 0 && hub == nil ? assignUid() : uid
        let channel = Channel(connection: ConnectionKey(channelId: channelId, localUid: localUid),
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
    public func leaveChannel(_ leaveChannelBlock: (@MainActor (AgoraChannelStats) -> Void)? = nil) -> Int32 {
        call {
            if let main { leave(main, then: leaveChannelBlock) }
            return 0
        }
    }

    /// Joins another channel through its own connection and delegate. Returns 0, or -2, -17, -102, -121.
    @discardableResult
    public func joinChannelEx(byToken token: String?, connection: AgoraRtcConnection,
                              delegate: (any AgoraRtcEngineDelegate)?,
                              mediaOptions: AgoraRtcChannelMediaOptions = AgoraRtcChannelMediaOptions(),
                              joinSuccess: (@MainActor (_ channel: String, _ uid: UInt, _ elapsed: Int) -> Void)? = nil) -> Int32 {
        call { joinEx(token: token, connection: connection.key, delegate: delegate, mediaOptions: mediaOptions, joinSuccess: joinSuccess) }
    }

    private func joinEx(token: String?, connection key: ConnectionKey, delegate: (any AgoraRtcEngineDelegate)?,
                        mediaOptions: AgoraRtcChannelMediaOptions, joinSuccess: (@MainActor (String, UInt, Int) -> Void)?) -> Int32 {
        if let code = checkJoinArguments(channelId: key.channelId, uid: key.localUid) { return code }
        guard key.localUid != 0 else { return -Int32(AgoraErrorCode.invalidUserId.rawValue) }
        let taken = (exChannels + [main].compactMap { $0 }).contains { $0.isActive && $0.connection == key }
        if taken { return -Int32(AgoraErrorCode.joinChannelRejected.rawValue) }
        exChannels.removeAll { $0.connection == key }
        let channel = Channel(connection: key, role: mediaOptions.clientRoleType ?? role, isMain: false,
                              exDelegate: delegate)
        channel.joinSuccess = joinSuccess
        exChannels.append(channel)
        beginJoin(channel, token: token)
        return 0
    }

    /// Updates a multi-channel connection's options, token included. Returns 0, or -8 when not in the channel.
    @discardableResult
    public func updateChannelEx(with mediaOptions: AgoraRtcChannelMediaOptions, connection: AgoraRtcConnection) -> Int32 {
        call {
            guard let channel = exChannel(connection.key), channel.acceptsUpdates else {
                return -Int32(AgoraErrorCode.invalidState.rawValue)
            }
            return update(channel, with: mediaOptions)
        }
    }

    /// Leaves a multi-channel connection; `leaveChannelBlock` gets its statistics.
    @discardableResult
    public func leaveChannelEx(_ connection: AgoraRtcConnection,
                               leaveChannelBlock: (@MainActor (AgoraChannelStats) -> Void)? = nil) -> Int32 {
        let key = connection.key
        return call {
            if let channel = exChannel(key) { leave(channel, then: leaveChannelBlock) }
            exChannels.removeAll { $0.connection == key }
            return 0
        }
    }

    func exChannel(_ key: ConnectionKey) -> Channel? {
        exChannels.first { $0.connection == key }
    }

    private func checkJoinArguments(channelId: String, uid: UInt) -> Int32? {
        do throws(TokenError) {
            try AgoraID.validateChannelName(channelId)
        } catch {
            return -Int32(AgoraErrorCode.invalidChannelId.rawValue)
        }
        if uid > UInt(UInt32.max) { return -Int32(AgoraErrorCode.invalidUserId.rawValue) }
        return nil
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
        channel.joinTimer = timers.schedule(after: config.simulation.joinLatency) { [weak self, weak channel] in
            guard let self, let channel else { return }
            self.fire { self.completeJoin(channel, rejoining: rejoining) }
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
                    emit(.didRegisteredLocalUser(account: account, uid: channel.connection.localUid), on: channel)
                }
                emit(.didJoinChannel(channel: channel.connection.channelId, uid: channel.connection.localUid,
                                     elapsed: elapsedMilliseconds(since: channel.joinStartedAt)), on: channel)
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
    func leave(_ channel: Channel, then block: (@MainActor (AgoraChannelStats) -> Void)? = nil) {
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
        var then: (@MainActor () -> Void)?
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
        emit(.connectionStateChanged(state, reason: reason), on: channel)
        updateReportTimer()
        updateVolumeTimer()
    }

    func elapsedMilliseconds(since start: Duration) -> Int {
        Int((timers.now - start).wholeMilliseconds)
    }
}
