import CallSession
import ChannelEngine
import CNcurses
import Dispatch
import Foundation
import Synchronization
import Timers
import TokenClient
#if canImport(Glibc)
import Glibc
#endif

/// The call screen. On the main actor, session events and keys update the state, which is handed to the frame
/// thread; the frame thread owns the terminal, reads keys (handing them back) and draws a frame every interval.
/// Frames do not wake the main actor: a hop to it costs more than drawing a frame's video (`Docs/benchmarks.md`).
@MainActor
public final class CallScreenApp {
    private let session: CallSession
    private let presenter: TerminalPresenter
    private let fps: Int
    private var state: ScreenState
    private let feed: SharedFeed
    /// The call's clock, which the frames' times move on between one state and the next.
    private let clock: ElapsedClock

    public init(session: CallSession, presenter: TerminalPresenter, fps: Int) {
        self.session = session
        clock = ElapsedClock(session.configuration.clock)
        self.presenter = presenter
        self.fps = max(1, min(60, fps))
        state = ScreenState(for: session)
        feed = SharedFeed(ScreenFeed(state: state))
    }

    /// Runs until `q`, Ctrl-C or `quit()`; leaves the channel and gives the terminal back. Returns the exit status.
    public func run() async -> Int32 {
        let earlier = session.onEvent  // a recorder
        session.onEvent = { [unowned self] event in
            earlier?(event)
            state.now = session.configuration.unixTime()
            state.apply(event)
            publish()
        }
        session.start()
        publish()
        // Video sources can change without an event (a peer's link going quiet): look again every second, or as often
        // as people on a hub send a new picture.
        let every = session.configuration.hub == nil ? 1 : AgoraRtcEngineKit.hubVideoInterval.secondsValue
        let refresh = DispatchSource.makeTimerSource(queue: .main)
        refresh.schedule(deadline: .now() + every, repeating: every, leeway: .milliseconds(Int(every * 100)))
        refresh.setEventHandler { [unowned self] in MainActor.assumeIsolated { publish() } }
        refresh.resume()
        defer { refresh.cancel() }
        let unixTime = session.configuration.unixTime
        await FrameThread.run(presenter: presenter, feed: feed, fps: fps, clock: clock, times: { feed, elapsed in
            (unixTime(), feed.sessionTime + elapsed, feed.engineTime + elapsed)
        }) {
            [weak self] key in self?.handle(key: key)
        }
        session.stop()
        return 0
    }

    /// Ends the screen as `q` does (the app calls it on SIGTERM or SIGHUP).
    public func quit() {
        feed.update { $0.quitting = true }
    }

    /// Hands the state, the video sources and the clocks to the frame thread.
    private func publish() {
        let engine = session.engine
        var sources: [UInt: VideoPicture] = [:]
        for uid in [state.uid] + state.remotes.map(\.uid) {
            if let source = session.video(forUid: uid) { sources[uid] = source }
        }
        let snapshot = (state: state, sources: sources, engineTime: engine?.now ?? .zero, sessionTime: session.now, at: clock.now())
        feed.update { feed in
            feed.state = snapshot.state
            feed.sources = snapshot.sources
            feed.engineTime = snapshot.engineTime
            feed.sessionTime = snapshot.sessionTime
            feed.publishedAt = snapshot.at
        }
    }

    /// A key goes into the paste field while it is open, else does what `KeyBinding.all` says.
    private func handle(key: Int32) {
        defer { publish() }
        guard state.paste == .closed else {
            switch state.paste.take(key) {
            case .submitted(let text): paste(text)
            case .quit: feed.update { $0.quitting = true }
            case .edited, .cancelled: break
            }
            return
        }
        switch state.press(KeyCommand(key: key)) {
        case .session(let command): command.perform(on: session)
        case .clock(let change): if let phase = session.changeClock(change) { state.clock = phase }
        case .unknown(let name): session.say("key \(name) does nothing; press ? for the keys")
        case .quit: feed.update { $0.quitting = true }
        // The state shows the help, the field and the timeline; a resized frame is drawn whole.
        case .help, .paste, .timeline, .resize, nil: break
        }
    }

    /// Hands the field's token to the session, or keeps the field open saying why it is not one.
    private func paste(_ text: String) {
        do throws(PastedTokenError) {
            let token = try PastedToken(text, unixTime: session.configuration.tokenUnixTime())
            state.paste = .closed
            session.paste(token)
        } catch {
            state.paste = .refused(text, why: error.description)
        }
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

/// The times a frame is drawn at, from the latest feed and the screen's clock's time since it was published: unix time and the
/// session's (the countdown and the call time), and the video's (the engine's clock, which video sources are drawn at).
typealias FrameTimes = @Sendable (ScreenFeed, Duration) -> (unix: Double, session: Duration, video: Duration)

/// The feed, shared by the main actor (which writes it) and the frame thread (which reads it each frame).
final class SharedFeed: Sendable {
    private let mutex: Mutex<ScreenFeed>

    init(_ feed: ScreenFeed) { mutex = Mutex(feed) }

    var current: ScreenFeed { mutex.withLock { $0 } }

    func update(_ change: (inout ScreenFeed) -> Void) { mutex.withLock { change(&$0) } }
}

/// The thread that owns the terminal while the screen runs: it waits in poll(2) for a key or the next frame, hands
/// keys to the main actor, and draws — the chrome again only when the state or the size changed, the video tiles
/// over it every frame, on the frame the presenter let go of.
final class FrameThread: @unchecked Sendable {
    private let presenter: TerminalPresenter
    private let feed: SharedFeed
    private let interval: Duration
    private let clock: ElapsedClock
    private let times: FrameTimes
    private let keys: @Sendable (Int32) -> Void
    private let finished: @Sendable () -> Void

    // Owned by the thread.
    private var chrome: (state: ScreenState, grid: CellGrid, version: Int)?
    private var spare: (grid: CellGrid, version: Int)?
    private var presentedVersion: Int?

    init(presenter: TerminalPresenter, feed: SharedFeed, fps: Int, clock: ElapsedClock, times: @escaping FrameTimes,
         keys: @escaping @Sendable (Int32) -> Void, finished: @escaping @Sendable () -> Void) {
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
                    keys handle: @escaping @MainActor @Sendable (Int32) -> Void) async {
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
        let thread = Thread { [self] in run() }
        thread.name = "tokencall-frames"
        thread.start()
    }

    private func run() {
        let wall = ContinuousClock()
        var next = wall.now
        while true {
            // Keys go to the main actor, which decides what they do (a `q` typed into the paste field does not quit).
            while let key = presenter.readKey() {
                if key == KEY_RESIZE { presenter.invalidate() }
                keys(key)
            }
            let feed = self.feed.current
            if feed.quitting { break }
            draw(feed, elapsed: clock.now() - feed.publishedAt)
            next += interval
            let now = wall.now
            if next < now { next = now }
            presenter.waitForKey(upTo: next - now)
        }
        presenter.close()
        finished()
    }

    private func draw(_ feed: ScreenFeed, elapsed: Duration) {
        var state = feed.state
        let now = times(feed, elapsed)
        state.tick(unixTime: now.unix, sessionTime: now.session)
        let (width, height) = presenter.size
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
