import HubProtocol
import Timers
import SeededRandom

/// The simulated people in one channel: they arrive at staggered times, publish video, and (with churn)
/// leave, drop and come back — all from the seed. They live on whether or not the local user is there.
/// Reached under the engine's lock only; its timers find it again through the engine, by channel name.
final class RemoteUsers {
    struct Peer {
        let uid: UInt
        let isHost: Bool
        let videoSize: VideoSize
        var present = false
        /// Set while the peer's link is silent: its video is frozen from then.
        var silentSince: Duration?
        var offlineReason: AgoraUserOfflineReason = .quit
        var timer: TimerQueue.ID?
        var removed = false
    }

    private(set) var peers: [Peer] = []
    private var random: SplitMix64
    private let channel: String
    private let timers: TimerQueue
    private weak var engine: AgoraRtcEngineKit?
    private let churn: Bool
    /// Whether only hosts are seen: the engine's channel profile, as of the latest join.
    var liveBroadcasting: Bool
    private var started = false
    /// Called after every change, so each local connection can bring its view up to date.
    private var observers: [(id: ObjectIdentifier, notify: () -> Void)] = []

    init(channel: String, seed: UInt64, count: Int, churn: Bool, liveBroadcasting: Bool, engine: AgoraRtcEngineKit) {
        self.channel = channel
        self.engine = engine
        random = SplitMix64(seed: seed, stream: "peers/" + channel)
        timers = engine.timers
        self.churn = churn
        self.liveBroadcasting = liveBroadcasting
        for _ in 0..<max(0, count) { peers.append(makePeer()) }
    }

    /// Peers the local user sees: present, and hosts when broadcasting live.
    var visible: [Peer] { peers.filter { $0.present && (!liveBroadcasting || $0.isHost) } }

    func peer(_ uid: UInt) -> Peer? { peers.first { $0.uid == uid } }

    /// Starts the arrivals the first time someone joins the channel.
    func start() {
        guard !started else { return }
        started = true
        var at = timers.now + .milliseconds(400)
        for index in peers.indices {
            let uid = peers[index].uid
            peers[index].timer = schedule(at: at) { $0.arrive(uid) }
            at += random.seconds(0.6, 2.2)
        }
    }

    /// A new peer that arrives now; returns its uid.
    func add() -> UInt {
        peers.append(makePeer(host: true))
        let uid = peers[peers.count - 1].uid
        arrive(uid)
        return uid
    }

    /// The given peer, or the latest present one, quits for good; returns its uid.
    func remove(_ uid: UInt?) -> UInt? {
        guard let index = peers.lastIndex(where: { $0.present && !$0.removed && (uid == nil || $0.uid == uid) }) else {
            return nil
        }
        timers.cancel(peers[index].timer)
        peers[index].removed = true
        peers[index].present = false
        peers[index].silentSince = nil
        peers[index].offlineReason = .quit
        changed()
        return peers[index].uid
    }

    private func arrive(_ uid: UInt) {
        update(uid) { peer in
            peer.present = true
            peer.silentSince = nil
        }
        scheduleDeparture(uid)
    }

    private func scheduleDeparture(_ uid: UInt) {
        guard churn else { return }
        let stay = random.seconds(45, 240)
        let quits = random.chance(0.65)
        setTimer(uid, after: stay) { users in
            if quits {
                users.update(uid) { $0.present = false; $0.offlineReason = .quit }
                users.setTimer(uid, after: users.random.seconds(8, 30)) { $0.arrive(uid) }
            } else {
                users.silence(uid)
            }
        }
    }

    /// The peer's link goes silent now: its video freezes, and it drops after `HubSilence.limit`.
    func silence(_ uid: UInt) {
        let now = timers.now
        update(uid) { $0.silentSince = now }
        setTimer(uid, after: HubSilence.limit) { users in
            users.update(uid) { $0.present = false; $0.silentSince = nil; $0.offlineReason = .dropped }
            users.setTimer(uid, after: users.random.seconds(5, 25)) { $0.arrive(uid) }
        }
    }

    private func setTimer(_ uid: UInt, after delay: Duration, _ action: @escaping @Sendable (RemoteUsers) -> Void) {
        guard let index = peers.firstIndex(where: { $0.uid == uid }), !peers[index].removed else { return }
        peers[index].timer = schedule(at: timers.now + delay, action)
    }

    /// A timer whose action runs under the engine's lock.
    private func schedule(at deadline: Duration, _ action: @escaping @Sendable (RemoteUsers) -> Void) -> TimerQueue.ID {
        timers.schedule(at: deadline) { [weak engine, channel] in
            guard let engine else { return }
            engine.locked { engine.worlds[channel].map(action) }
        }
    }

    private func update(_ uid: UInt, _ change: (inout Peer) -> Void) {
        guard let index = peers.firstIndex(where: { $0.uid == uid }), !peers[index].removed else { return }
        change(&peers[index])
        changed()
    }

    func observe(_ id: ObjectIdentifier, _ notify: @escaping () -> Void) {
        guard !observers.contains(where: { $0.id == id }) else { return }
        observers.append((id, notify))
    }

    func stopObserving(_ id: ObjectIdentifier) {
        observers.removeAll { $0.id == id }
    }

    private func changed() {
        for observer in observers { observer.notify() }
    }

    private func makePeer(host: Bool? = nil) -> Peer {
        var uid: UInt
        repeat { uid = UInt.random(in: 10_000...99_999, using: &random) } while peers.contains { $0.uid == uid }
        let sizes = [VideoSize(width: 640, height: 360), VideoSize(width: 1280, height: 720), VideoSize(width: 480, height: 640)]
        return Peer(uid: uid, isHost: host ?? (peers.count % 4 != 3), videoSize: sizes[Int(uid % 3)])
    }
}
