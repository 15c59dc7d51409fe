import CallSession
import ChannelEngine
import Dispatch
import Foundation
import Synchronization
import Timers
#if canImport(Glibc)
import Glibc
#endif

/// The call screen as one program, for a live call, a replay and the off-screen picture (`join --screenshot`) alike:
/// its model (`ScreenState`) changes only by `update` with a message — a key, an event of the call or the recording, a
/// tick of the clocks, a new size — and the effects a message yields are carried out here. What differs is the
/// `ScreenSource`: where the events come from, who carries out the effects, and the clocks. On a terminal, the frame
/// thread owns the terminal, reads keys (handing them back) and draws a frame every interval; frames do not wake the
/// main actor: a hop to it costs more than drawing a frame's video (`Docs/benchmarks.md`).
@MainActor
public final class CallScreenApp {
    private var state: ScreenState
    private let source: any ScreenSource
    private let feed: SharedFeed

    /// The screen of a live call.
    public convenience init(session: CallSession) {
        self.init(source: LiveCall(session))
    }

    /// A recording played back on its own clock: `state` is the screen before the first event (from the recording's
    /// header), in `.replay` mode.
    public convenience init(replay track: ReplayTrack, state: ScreenState, clock: ScaledClock) {
        self.init(source: Playback(track: track, state: state, clock: clock))
    }

    init(source: any ScreenSource) {
        self.source = source
        state = source.initialState
        feed = SharedFeed(ScreenFeed(state: state))
    }

    /// Follows the source from now on and starts it (the call joins, the replay plays).
    public func start() {
        source.start { [weak self] message in self?.send(message) }
        send(.tick(source.time()))
    }

    /// Runs on the terminal at `fps` frames a second until `q`, Ctrl-C or `quit()`; then the call leaves and the
    /// terminal is given back. Returns the exit status.
    public func run(on presenter: TerminalPresenter, fps: Int) async -> Int32 {
        let (width, height) = presenter.size
        send(.resize(width: width, height: height))
        start()
        // Video sources can change without an event (a peer's link going quiet): look again every so often.
        let refresh = source.refreshInterval.map { every in
            let timer = DispatchSource.makeTimerSource(queue: .main)
            timer.schedule(deadline: .now() + every, repeating: every, leeway: .milliseconds(Int(every * 100)))
            timer.setEventHandler { [unowned self] in MainActor.assumeIsolated { publish() } }
            timer.resume()
            return timer
        }
        defer { refresh?.cancel() }
        await FrameThread.run(presenter: presenter, feed: feed, fps: max(1, min(60, fps)), clock: source.elapsed,
                              times: source.frameTimes) { [weak self] message in self?.fromTerminal(message) }
        source.stop()
        return 0
    }

    /// Ends the screen as `q` does (the app calls it on SIGTERM or SIGHUP).
    public func quit() {
        feed.update { $0.quitting = true }
    }

    /// The screen now, at `width`×`height` cells, without a terminal.
    public func picture(width: Int, height: Int, options: RenderOptions) -> CellGrid {
        send(.tick(source.time()))
        send(.resize(width: width, height: height))
        let sources = source.video(for: state)
        return ScreenRenderer.render(state, width: state.size.width, height: state.size.height, options: options,
                                     video: { sources[$0] }, at: source.clocks.video)
    }

    /// A key is taken at the clocks' time of the moment (a pasted token is read then).
    private func fromTerminal(_ message: ScreenMessage) {
        if case .key = message { send(.tick(source.time())) }
        send(message)
    }

    /// Hands `message` to the model and carries out what it asks.
    private func send(_ message: ScreenMessage) {
        for effect in state.update(message) {
            switch effect {
            case .quit:
                quit()
            case .clock:
                source.perform(effect)
                send(.tick(source.time()))
            case .session, .paste:
                source.perform(effect)
            }
        }
        publish()
    }

    /// Hands the state, the video sources and the clocks to the frame thread.
    private func publish() {
        let snapshot = (state: state, sources: source.video(for: state), clocks: source.clocks, at: source.elapsed.now())
        feed.update { feed in
            feed.state = snapshot.state
            feed.sources = snapshot.sources
            feed.engineTime = snapshot.clocks.video
            feed.sessionTime = snapshot.clocks.session
            feed.publishedAt = snapshot.at
        }
    }
}

/// Where a screen's messages come from and who carries out its effects: a live call, or a recording played back.
@MainActor
protocol ScreenSource: AnyObject {
    /// The screen before anything has happened.
    var initialState: ScreenState { get }
    /// Begins: each event from now on goes to `send`.
    func start(_ send: @escaping @MainActor (ScreenMessage) -> Void)
    /// Carries out a session command, a clock change or a paste.
    func perform(_ effect: ScreenEffect)
    func stop()
    /// The clocks now.
    func time() -> ScreenTime
    /// The session's time and the video's (which video sources are drawn at) now.
    var clocks: (session: Duration, video: Duration) { get }
    func video(for state: ScreenState) -> [UInt: VideoPicture]
    /// The screen's clock, which frames move the published times on by.
    var elapsed: ElapsedClock { get }
    var frameTimes: FrameTimes { get }
    /// How often the video sources are looked at again without an event; nil: only with events.
    var refreshInterval: Double? { get }
}

/// A live call: the session's events, its controls, its clocks and its video.
@MainActor
final class LiveCall: ScreenSource {
    let session: CallSession
    let elapsed: ElapsedClock

    init(_ session: CallSession) {
        self.session = session
        elapsed = ElapsedClock(session.configuration.clock)
    }

    var initialState: ScreenState { ScreenState(for: session) }

    func start(_ send: @escaping @MainActor (ScreenMessage) -> Void) {
        let unixTime = session.configuration.unixTime
        session.observe { event in send(.event(event, unixTime: unixTime())) }
        session.start()
    }

    func perform(_ effect: ScreenEffect) {
        switch effect {
        case .session(let command): session.perform(command)
        case .clock(let change): session.changeClock(change)
        case .paste(let token): session.paste(token)
        case .quit: break
        }
    }

    func stop() { session.stop() }

    func time() -> ScreenTime {
        let config = session.configuration
        return ScreenTime(unixTime: config.unixTime(), tokenUnixTime: config.tokenUnixTime(), sessionTime: session.now,
                          clock: session.clockPhase ?? .running(speed: 1))
    }

    var clocks: (session: Duration, video: Duration) { (session.now, session.engine?.now ?? .zero) }

    func video(for state: ScreenState) -> [UInt: VideoPicture] {
        var sources: [UInt: VideoPicture] = [:]
        for uid in [state.call.uid] + state.remotes.map(\.uid) {
            if let source = session.video(forUid: uid) { sources[uid] = source }
        }
        return sources
    }

    var frameTimes: FrameTimes {
        let config = session.configuration
        let (unixTime, tokenUnixTime, scaled) = (config.unixTime, config.tokenUnixTime, config.clock as? ScaledClock)
        return { feed, elapsed in
            (ScreenTime(unixTime: unixTime(), tokenUnixTime: tokenUnixTime(), sessionTime: feed.sessionTime + elapsed,
                        clock: scaled?.phase ?? .running(speed: 1)),
             feed.engineTime + elapsed)
        }
    }

    var refreshInterval: Double? {
        session.configuration.hub == nil ? 1 : AgoraRtcEngineKit.hubVideoInterval.secondsValue
    }
}

/// A recording played back: its events when the replay's clock reaches them, the simulator's video drawn again, and
/// only the clock to change (`<`, `>`, space). There is no call, so no call keys.
@MainActor
final class Playback: ScreenSource {
    private var track: ReplayTrack
    /// Time into the recording.
    private let clock: ScaledClock
    let initialState: ScreenState
    let elapsed: ElapsedClock
    private var player: Task<Void, Never>?

    init(track: ReplayTrack, state: ScreenState, clock: ScaledClock) {
        self.track = track
        self.clock = clock
        initialState = state
        elapsed = ElapsedClock(clock)
    }

    /// Sends each event when the clock reaches it (its sleep follows the speed keys and the pause), then the end.
    func start(_ send: @escaping @MainActor (ScreenMessage) -> Void) {
        player = Task { @MainActor [weak self] in
            while let self, let next = self.track.nextTime {
                do { try await self.clock.sleep(until: .init(offset: next)) } catch { return }
                for message in self.track.take(upTo: self.clock.now.offset) { send(message) }
            }
            send(.recordingEnded)
        }
    }

    func perform(_ effect: ScreenEffect) {
        if case .clock(let change) = effect { clock.perform(change) }
    }

    func stop() { player?.cancel() }

    private var position: Duration { min(clock.now.offset, track.end) }

    func time() -> ScreenTime {
        ScreenTime(unixTime: track.unixTime(at: position), sessionTime: position, clock: clock.phase)
    }

    var clocks: (session: Duration, video: Duration) { (position, position) }

    func video(for state: ScreenState) -> [UInt: VideoPicture] { track.video(for: state) }

    var frameTimes: FrameTimes {
        let (clock, track) = (clock, track)
        return { _, _ in
            let position = min(clock.now.offset, track.end)
            return (ScreenTime(unixTime: track.unixTime(at: position), sessionTime: position, clock: clock.phase), position)
        }
    }

    var refreshInterval: Double? { nil }
}

extension ScreenState {
    /// The screen of `session` before anything has happened in it.
    @MainActor
    public init(for session: CallSession) {
        self.init(call: session.settings, clock: session.clockPhase ?? .running(speed: 1),
                  hub: session.configuration.hub.map { HubStatus(address: $0.address) })
    }
}

/// What the main actor hands the frame thread: the latest state and what is needed to draw it at any moment.
struct ScreenFeed: Sendable {
    var state: ScreenState
    /// Video of each user who has some, by uid.
    var sources: [UInt: VideoPicture] = [:]
    /// The engine's and the session's clocks at `publishedAt` (on the screen's clock); the frame thread moves them on
    /// by the screen's clock's time since, so they stand still while it is paused.
    var engineTime: Duration = .zero
    var sessionTime: Duration = .zero
    var publishedAt: Duration = .zero
    var quitting = false
}

/// The times a frame is drawn at, from the latest feed and the screen's clock's time since it was published: the tick's
/// (the countdown and the call time), and the video's (the engine's clock, which video sources are drawn at).
typealias FrameTimes = @Sendable (ScreenFeed, Duration) -> (time: ScreenTime, video: Duration)

/// The feed, shared by the main actor (which writes it) and the frame thread (which reads it each frame).
final class SharedFeed: Sendable {
    private let mutex: Mutex<ScreenFeed>

    init(_ feed: ScreenFeed) { mutex = Mutex(feed) }

    var current: ScreenFeed { mutex.withLock { $0 } }

    func update(_ change: (inout ScreenFeed) -> Void) { mutex.withLock { change(&$0) } }
}

/// The thread that owns the terminal while the screen runs: it waits in poll(2) for a key or the next frame, hands
/// keys and new sizes to the main actor, and draws — the chrome again only when the state or the size changed, the video tiles
/// over it every frame, on the frame the presenter let go of.
struct FrameThread: Sendable {
    private let presenter: TerminalPresenter
    private let feed: SharedFeed
    private let interval: Duration
    private let clock: ElapsedClock
    private let times: FrameTimes
    private let keys: @Sendable (ScreenMessage) -> Void
    private let finished: @Sendable () -> Void

    init(presenter: TerminalPresenter, feed: SharedFeed, fps: Int, clock: ElapsedClock, times: @escaping FrameTimes,
         keys: @escaping @Sendable (ScreenMessage) -> Void, finished: @escaping @Sendable () -> Void) {
        self.presenter = presenter
        self.feed = feed
        interval = .microseconds(1_000_000 / fps)
        self.clock = clock
        self.times = times
        self.keys = keys
        self.finished = finished
    }

    /// Draws on a frame thread of its own until the screen quits, handing each key to `handle` on the main actor.
    @MainActor
    static func run(presenter: TerminalPresenter, feed: SharedFeed, fps: Int, clock: ElapsedClock,
                    times: @escaping FrameTimes,
                    keys handle: @escaping @MainActor @Sendable (ScreenMessage) -> Void) async {
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            let frames = FrameThread(presenter: presenter, feed: feed, fps: fps, clock: clock, times: times) { key in
                // `handle` holds its screen weakly: a key can be on its way when the screen has already finished.
                DispatchQueue.main.async { MainActor.assumeIsolated { handle(key) } }
            } finished: {
                finished.resume()
            }
            frames.start()
        }
    }

    func start() {
        let thread = Thread { run() }
        thread.name = "tokencall-frames"
        thread.start()
    }

    private func run() {
        let wall = ContinuousClock()
        var next = wall.now
        var drawn = Drawn()
        while true {
            // Keys and sizes go to the main actor, which decides what they do (a `q` typed into the paste field does not quit).
            while let message = presenter.read() { keys(message) }
            let feed = self.feed.current
            if feed.quitting { break }
            drawn.draw(feed, at: times(feed, clock.now() - feed.publishedAt), on: presenter)
            next += interval
            let now = wall.now
            if next < now { next = now }
            presenter.waitForKey(upTo: next - now)
        }
        presenter.close()
        finished()
    }

    /// What the frame thread keeps from frame to frame: the chrome, and the frame the presenter let go of.
    private struct Drawn {
        private var chrome: (state: ScreenState, grid: CellGrid, version: Int)?
        private var spare: (grid: CellGrid, version: Int)?
        private var presentedVersion: Int?

        mutating func draw(_ feed: ScreenFeed, at now: (time: ScreenTime, video: Duration), on presenter: TerminalPresenter) {
            var state = feed.state
            _ = state.update(.tick(now.time))
            let (width, height) = (state.size.width, state.size.height)
            if chrome?.state != state || chrome?.grid.width != width || chrome?.grid.height != height {
                chrome = (state, ScreenRenderer.chrome(state, width: width, height: height, options: presenter.options),
                          (chrome?.version ?? 0) + 1)
            }
            let version = chrome!.version
            var grid = chrome!.grid
            if let taken = spare.take(), taken.version == version { grid = taken.grid }
            ScreenRenderer.drawMotion(state, into: &grid, options: presenter.options, video: { feed.sources[$0] },
                                      at: now.video)
            if let released = presenter.present(grid), let presentedVersion { spare = (released, presentedVersion) }
            presentedVersion = version
        }
    }
}
