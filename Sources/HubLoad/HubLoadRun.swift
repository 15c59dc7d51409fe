import HubClient
import HubProtocol
import Synchronization
import TLS
import Timers

/// N headless clients on a few loops (raw hub connections, not engines): each fetches its token, joins channel
/// k mod M, renews on `tokenPrivilegeWillExpire`, and sends flat video frames whose first two cells carry when
/// they were sent, so each receiver measures the fan-out's latency on the process's one clock.
public enum HubLoadRun {
    /// Client k is served by loop k mod `loops.count` (`tokencall load` gives one a core: reading a thousand sockets
    /// and decoding every frame is more than one thread keeps up with). A wss:// hub's certificate is checked against
    /// `trust`.
    public static func run(_ plan: LoadPlan, hub: HubAddress, loops: [HubClientLoop], trust: TLSTrust = .system) async -> LoadFigures {
        precondition(!loops.isEmpty, "a load runs on at least one loop")
        let tally = LoadTally(names: [Measure.tokenFetch, Measure.join, Measure.renewal, Measure.fanOut])
        let epoch = ContinuousClock.now
        let end = epoch + plan.duration
        let clients = (0..<plan.clients).map { index in
            LoadClient(index: index, plan: plan, tally: tally, epoch: epoch,
                       connection: HubConnection(address: hub.routed(to: plan.channel(of: index)), loop: loops[index % loops.count], trust: trust))
        }
        await withTaskGroup(of: Void.self) { group in
            for client in clients {
                group.addTask {
                    try? await Task.sleep(until: epoch + plan.arrival(of: client.index))
                    await client.start(until: end)
                }
            }
            group.addTask { await sendVideo(from: clients, plan: plan, epoch: epoch, until: end) }
            // A fetch still under way at the end is given up: the run lasts its duration, not its slowest fetch.
            try? await Task.sleep(until: end)
            group.cancelAll()
        }
        for client in clients {
            client.connection.close()
            if !client.everJoined.load(ordering: .relaxed) { tally.error("never joined") }
            tally.record(Measure.fanOut, client.fanOut.withLock { $0 })
        }
        return tally.figures
    }

    /// Each frame interval (a second / `framesPerSecond`) is cut in `videoSlots` slices, and client k sends in slice
    /// k mod `videoSlots`: frames go out a few at a time, evenly, not a thousand in one burst whose fan-out the
    /// receiving loop then reads for as long as it takes, the last frame's latency the whole burst's.
    private static func sendVideo(from clients: [LoadClient], plan: LoadPlan, epoch: ContinuousClock.Instant,
                                  until end: ContinuousClock.Instant) async {
        guard plan.framesPerSecond > 0 else { return }
        let slice = Duration.seconds(1) / (plan.framesPerSecond * videoSlots)
        let bySlot = (0..<videoSlots).map { slot in clients.filter { $0.index % videoSlots == slot } }
        var tick = 0
        while ContinuousClock.now < end {
            for client in bySlot[tick % videoSlots] where client.joined.load(ordering: .relaxed) {
                client.connection.sendVideo(TimedFrame.make(sentAt: .now - epoch))
            }
            // A sender that woke late catches up, but by one interval at most: each client sends one frame for the time
            // missed, as a camera would, not seconds of frames at once (seen after this task stood still for 4 s: the
            // load's own storm, not the hub's).
            tick = max(tick + 1, Int((ContinuousClock.now - epoch) / slice) - videoSlots + 1)
            try? await Task.sleep(until: epoch + slice * tick)
        }
    }

    /// Slices of a frame interval the clients' sends are spread over: 10 ms at one frame a second.
    static let videoSlots = 100
}

/// A flat grey 32×18 frame whose first two cells hold the microseconds since the run began (48 bits).
enum TimedFrame {
    static let grey = HubVideoFrame.Color(red: 90, green: 90, blue: 90)

    static func make(sentAt: Duration) -> HubVideoFrame {
        let micros = UInt64(max(0, sentAt.wholeMicroseconds))
        func color(_ bits: UInt64) -> HubVideoFrame.Color {
            .init(red: UInt8(truncatingIfNeeded: bits >> 16), green: UInt8(truncatingIfNeeded: bits >> 8), blue: UInt8(truncatingIfNeeded: bits))
        }
        let cells = [color(micros >> 24), color(micros)]
            + Array(repeating: grey, count: HubVideoFrame.sentColumns * HubVideoFrame.sentRows - 2)
        return HubVideoFrame(columns: HubVideoFrame.sentColumns, rows: HubVideoFrame.sentRows, cells: cells)!
    }

    /// When a frame of `make` was sent, since the run began; nil for a frame of another size.
    static func sentAt(_ frame: HubVideoFrame) -> Duration? {
        guard frame.cells.count == HubVideoFrame.sentColumns * HubVideoFrame.sentRows else { return nil }
        func bits(_ color: HubVideoFrame.Color) -> UInt64 { UInt64(color.red) << 16 | UInt64(color.green) << 8 | UInt64(color.blue) }
        return .microseconds(Int64(bits(frame.cells[0]) << 24 | bits(frame.cells[1])))
    }
}

/// One headless client. Its events arrive on its loop's thread, one at a time.
final class LoadClient: Sendable {
    let index: Int
    let connection: HubConnection
    let joined = Atomic(false)
    let everJoined = Atomic(false)
    /// This client's video fan-out latencies, added to the tally at the end (a lock of its own, never waited for:
    /// one shared by a thousand clients was taken for every frame received).
    let fanOut = Mutex<[Duration]>([])
    private let plan: LoadPlan
    private let tally: LoadTally
    private let epoch: ContinuousClock.Instant
    private let token = Mutex<String?>(nil)
    /// When the join went and when the token's expiry was announced, for the answers' latencies (only the events
    /// take this lock, one at a time: it is never waited for).
    private let sent = Mutex<(join: ContinuousClock.Instant?, warned: ContinuousClock.Instant?)>((nil, nil))

    init(index: Int, plan: LoadPlan, tally: LoadTally, epoch: ContinuousClock.Instant, connection: HubConnection) {
        (self.index, self.plan, self.connection, self.tally, self.epoch) = (index, plan, connection, tally, epoch)
    }

    /// Fetches a token and, if it came before `end`, opens the connection (which joins once connected).
    func start(until end: ContinuousClock.Instant) async {
        guard let fetched = await plan.fetchToken(for: index, tally: tally, as: Measure.tokenFetch), ContinuousClock.now < end else { return }
        token.withLock { $0 = fetched }
        connection.open { [self] event in handle(event) }
    }

    private func handle(_ event: HubLinkEvent) {
        switch event {
        case .connected:
            guard let token = token.withLock({ $0 }) else { return }
            sent.withLock { $0.join = .now }
            connection.send(.join(HubJoin(channel: plan.channel(of: index), user: .uid(plan.uid(of: index)), token: token)))
        case .lost:
            joined.store(false, ordering: .relaxed)
            tally.lost()
        case .video(let frame):
            if let sentAt = TimedFrame.sentAt(frame) {
                let latency = (.now - epoch) - sentAt
                fanOut.withLock { $0.append(latency) }
            }
        case .unreadableVideo:
            tally.error("a video frame that does not add up")
        case .notice(let notice):
            handle(notice)
        }
    }

    private func handle(_ notice: HubNotice) {
        switch notice {
        case .joined:
            if let joinSentAt = sent.withLock({ $0.join }) { tally.recordJoin(.now - joinSentAt, on: connection.hubName) }
            joined.store(true, ordering: .relaxed)
            everJoined.store(true, ordering: .relaxed)
        case .connectionStateChanged(_, let reason, _):
            joined.store(false, ordering: .relaxed)
            tally.error("out of the channel: \(reason.name)")
        case .tokenPrivilegeWillExpire:
            sent.withLock { $0.warned = .now }
            Task { [self] in
                guard let fresh = await plan.fetchToken(for: index, tally: tally, as: Measure.tokenFetch) else { return }
                token.withLock { $0 = fresh }
                connection.send(.renew(token: fresh))
            }
        case .renewTokenResult(let result, _):
            guard result == .success else { return tally.error("renewal: \(result.name)") }
            if let warnedAt = sent.withLock({ $0.warned }) { tally.record(Measure.renewal, .now - warnedAt) }
        case .error:
            tally.error("hub error")
        case .userJoined, .userOffline, .userMedia, .clientRoleChanged:
            break
        }
    }
}
