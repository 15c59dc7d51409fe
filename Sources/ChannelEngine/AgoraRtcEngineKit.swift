import AccessToken
import Timers
import SeededRandom

/// A simulated `AgoraRtcEngineKit`: the same methods, return codes and callbacks, over a simulated network
/// whose time comes from an injected clock.
@MainActor
public final class AgoraRtcEngineKit {
    public weak var delegate: (any AgoraRtcEngineDelegate)?
    /// Every callback of the main connection as one value, for the simulator's own consumers (the call session,
    /// tests); apps implement `delegate`. Called from the same delivery loop, just before the delegate.
    public var observer: ((AgoraRtcEvent) -> Void)?
    public let config: AgoraRtcEngineConfig

    let timers: TimerQueue
    var random: SplitMix64
    var main: Channel?
    var exChannels: [Channel] = []
    var worlds: [String: RemoteUsers] = [:]
    var role: AgoraClientRole = .broadcaster
    var videoEnabled = false
    var previewing = false
    /// When the link went down, on the engine's clock; nil while it is up.
    var networkDownSince: Duration?
    var saidSignatureNotChecked = false

    private var queue: [(channel: Channel?, event: AgoraRtcEvent)] = []
    private var delivering = false

    /// Creates an engine; `sharedEngine(with:delegate:)` is the Agora-style spelling.
    public init(config: AgoraRtcEngineConfig, delegate: (any AgoraRtcEngineDelegate)?) {
        self.config = config
        self.delegate = delegate
        timers = TimerQueue(clock: config.simulation.clock)
        random = SplitMix64(seed: config.simulation.seed, stream: "engine")
    }

    public static func sharedEngine(with config: AgoraRtcEngineConfig, delegate: (any AgoraRtcEngineDelegate)?) -> AgoraRtcEngineKit {
        AgoraRtcEngineKit(config: config, delegate: delegate)
    }

    // MARK: State a screen shows

    /// The main connection's state.
    public var connectionState: AgoraConnectionState { main?.state ?? .disconnected }
    /// The reason of the main connection's last state change.
    public var connectionChangedReason: AgoraConnectionChangedReason { main?.reason ?? .reasonLeaveChannel }
    /// Channel and local uid of the main connection (the uid the engine assigned when joined with 0).
    public var connection: AgoraRtcConnection? { main?.connection }
    public var clientRole: AgoraClientRole { role }
    /// The token the main connection holds.
    public var currentToken: String? { main?.token }
    /// When that token stops being accepted (unix seconds), if it expires.
    public var tokenExpiresAt: Int64? { main?.tokenExpiresAt }
    /// Remote users of the main connection, in the order they were announced.
    public var remoteUids: [UInt] { main?.announced ?? [] }
    public var isNetworkInterrupted: Bool { networkDownSince != nil }

    /// The state of a multi-channel connection.
    public func connectionState(for connection: AgoraRtcConnection) -> AgoraConnectionState {
        exChannel(connection)?.state ?? .disconnected
    }

    // MARK: Local media

    public func enableVideo() -> Int32 {
        videoEnabled = true
        return 0
    }

    public func disableVideo() -> Int32 {
        videoEnabled = false
        return 0
    }

    public func startPreview() -> Int32 {
        previewing = true
        return 0
    }

    public func stopPreview() -> Int32 {
        previewing = false
        return 0
    }

    /// Broadcaster publishes, audience only watches; in live broadcasting peers see an audience leave.
    /// Outside a channel only a change to audience is reported, as Agora documents.
    public func setClientRole(_ newRole: AgoraClientRole) -> Int32 {
        let old = role
        role = newRole
        if let main, main.isActive {
            changeRole(of: main, from: old, to: newRole)
        } else if old != newRole, newRole == .audience {
            emit(.didClientRoleChanged(old: old, new: newRole), on: main)
        }
        flush()
        return 0
    }

    func changeRole(of channel: Channel, from old: AgoraClientRole, to new: AgoraClientRole) {
        channel.role = new
        guard old != new, channel.isInChannel else { return }
        emit(.didClientRoleChanged(old: old, new: new), on: channel)
        if new == .audience, config.channelProfile == .liveBroadcasting {
            emit(.simulatorNotice(.localUserOfflineForPeers(.becomeAudience)), on: channel)
        }
    }

    // MARK: Joining and leaving

    /// Joins a channel; uid 0 asks the engine to assign one. Returns 0, or -2, -17, -102, -121.
    public func joinChannel(byToken token: String?, channelId: String, uid: UInt,
                            mediaOptions: AgoraRtcChannelMediaOptions = AgoraRtcChannelMediaOptions()) -> Int32 {
        if let code = checkJoinArguments(channelId: channelId, uid: uid) { return code }
        if let main, main.isActive { return -Int32(AgoraErrorCode.joinChannelRejected.rawValue) }
        if let newRole = mediaOptions.clientRoleType { role = newRole }
        let channel = Channel(connection: AgoraRtcConnection(channelId: channelId, localUid: uid == 0 ? assignUid() : uid),
                              role: role, isMain: true, exDelegate: nil)
        main = channel
        beginJoin(channel, token: token)
        flush()
        return 0
    }

    /// Leaves the main channel: state disconnected / leaveChannel, then `didLeaveChannel`.
    public func leaveChannel() -> Int32 {
        if let main { leave(main) }
        flush()
        return 0
    }

    /// Joins another channel through its own connection and delegate. Returns 0, or -2, -17, -102, -121.
    public func joinChannelEx(byToken token: String?, connection: AgoraRtcConnection,
                              delegate: (any AgoraRtcEngineDelegate)?,
                              mediaOptions: AgoraRtcChannelMediaOptions = AgoraRtcChannelMediaOptions()) -> Int32 {
        if let code = checkJoinArguments(channelId: connection.channelId, uid: connection.localUid) { return code }
        guard connection.localUid != 0 else { return -Int32(AgoraErrorCode.invalidUserId.rawValue) }
        let taken = (exChannels + [main].compactMap { $0 }).contains { $0.isActive && $0.connection == connection }
        if taken { return -Int32(AgoraErrorCode.joinChannelRejected.rawValue) }
        exChannels.removeAll { $0.connection == connection }
        let channel = Channel(connection: connection, role: mediaOptions.clientRoleType ?? role, isMain: false,
                              exDelegate: delegate)
        exChannels.append(channel)
        beginJoin(channel, token: token)
        flush()
        return 0
    }

    /// Updates a multi-channel connection's options, token included. Returns 0, or -8 when not joined.
    public func updateChannelEx(with mediaOptions: AgoraRtcChannelMediaOptions, connection: AgoraRtcConnection) -> Int32 {
        guard let channel = exChannel(connection), channel.acceptsUpdates else { return -Int32(AgoraErrorCode.invalidState.rawValue) }
        let code = update(channel, with: mediaOptions)
        flush()
        return code
    }

    /// Leaves a multi-channel connection.
    public func leaveChannelEx(_ connection: AgoraRtcConnection) -> Int32 {
        if let channel = exChannel(connection) { leave(channel) }
        exChannels.removeAll { $0.connection == connection }
        flush()
        return 0
    }

    func exChannel(_ connection: AgoraRtcConnection) -> Channel? {
        exChannels.first { $0.connection == connection }
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

    private func assignUid() -> UInt {
        UInt(UInt32.random(in: 100_000...999_999_999, using: &random))
    }

    /// Connecting now; the network answers after the join latency. A rejoin (renewing out of failed)
    /// says `renewToken` and ends in `rejoinSuccess`.
    func beginJoin(_ channel: Channel, token: String?, rejoining: Bool = false) {
        channel.pendingToken = token
        channel.joinStartedAt = timers.now
        setState(.connecting, rejoining ? .reasonRenewToken : .reasonConnecting, on: channel)
        channel.joinTimer = timers.schedule(after: config.simulation.joinLatency) { [weak self, weak channel] in
            guard let self, let channel else { return }
            self.run { self.completeJoin(channel, rejoining: rejoining) }
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
            if !rejoining {
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

    func leave(_ channel: Channel) {
        guard channel.isActive else { return }
        let wasIn = channel.isInChannel
        stopTimers(of: channel)
        channel.joinWaitsForNetwork = false
        channel.pendingRenewResult = false
        channel.token = nil
        channel.tokenExpiresAt = nil
        channel.tokenExpiry = nil
        detach(channel)
        setState(.disconnected, .reasonLeaveChannel, on: channel)
        emit(.didLeaveChannel(channel.connection), on: channel)
        if wasIn { emit(.simulatorNotice(.localUserOfflineForPeers(.quit)), on: channel) }
    }

    // MARK: Events

    func setState(_ state: AgoraConnectionState, _ reason: AgoraConnectionChangedReason, on channel: Channel) {
        channel.state = state
        channel.reason = reason
        emit(.connectionStateChanged(state, reason: reason), on: channel)
    }

    func emit(_ event: AgoraRtcEvent, on channel: Channel?) {
        queue.append((channel, event))
    }

    /// Delivers queued callbacks in order; a callback that calls back into the engine queues more, which
    /// this same loop delivers after it returns.
    func flush() {
        guard !delivering else { return }
        delivering = true
        defer { delivering = false }
        while !queue.isEmpty {
            let (channel, event) = queue.removeFirst()
            if channel?.isMain == false {
                if let target = channel?.exDelegate { event.deliver(to: target, from: self) }
            } else {
                observer?(event)
                if let delegate { event.deliver(to: delegate, from: self) }
            }
        }
    }

    /// Runs timer work and then delivers what it queued.
    func run(_ work: () -> Void) {
        work()
        flush()
    }

    func elapsedMilliseconds(since start: Duration) -> Int {
        Int((timers.now - start).wholeMilliseconds)
    }
}
