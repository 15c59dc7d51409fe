import CallSession
import Timers

/// A recording played back on the call screen: the recorded events drive the same `ScreenState` the live call did,
/// on the replay's own clock (`<` and `>` change its speed, space pauses it), with the simulator's video drawn again
/// (`ReplayTrack.video`). There is no call, so no call keys: the key bar and the help offer the replay's keys only.
@MainActor
public final class ReplayScreenApp {
    private var track: ReplayTrack
    /// Time into the recording.
    private let clock: ScaledClock
    private let presenter: TerminalPresenter
    private let fps: Int
    private var state: ScreenState
    private let feed: SharedFeed

    /// `state` is the screen before the first event (from the recording's header).
    public init(track: ReplayTrack, state: ScreenState, clock: ScaledClock, presenter: TerminalPresenter, fps: Int) {
        self.track = track
        self.clock = clock
        self.presenter = presenter
        self.fps = max(1, min(60, fps))
        var state = state
        state.now = track.unixTime(at: .zero)
        state.mode = .replay(speed: clock.speed, phase: .playing)
        self.state = state
        feed = SharedFeed(ScreenFeed(state: state))
    }

    /// Plays the recording until `q`, Ctrl-C or `quit()`; the last state stays on the screen after the last event.
    public func run() async -> Int32 {
        let player = Task { @MainActor [weak self] in await self?.play() }
        let clock = clock, track = track
        await FrameThread.run(presenter: presenter, feed: feed, fps: fps, clock: ElapsedClock(clock), times: { _, _ in
            let position = min(clock.now.offset, track.end)
            return (track.unixTime(at: position), position, position)
        }) { [weak self] key in self?.handle(key: key) }
        player.cancel()
        return 0
    }

    /// Ends the replay as `q` does (the app calls it on SIGTERM or SIGHUP).
    public func quit() {
        feed.update { $0.quitting = true }
    }

    /// Applies each event when the clock reaches it (its sleep follows the speed keys and the pause).
    private func play() async {
        while let next = track.nextTime {
            do { try await clock.sleep(until: .init(offset: next)) } catch { return }
            track.play(upTo: clock.now.offset, into: &state)
            publish()
        }
        state.mode = .replay(speed: clock.speed, phase: .ended)
        publish()
    }

    private func publish() {
        let snapshot = (state: state, sources: track.video(for: state))
        feed.update { feed in
            feed.state = snapshot.state
            feed.sources = snapshot.sources
        }
    }

    /// A replay key changes the clock; a key of the call does nothing here (the key bar does not offer it).
    private func handle(key: Int32) {
        switch state.press(KeyCommand(key: key, in: .replay)) {
        case .clock(let change):
            let phase = clock.perform(change)
            if case .replay(_, let shown) = state.mode, shown != .ended {
                state.mode = .replay(speed: phase.speed, phase: phase.isPaused ? .paused : .playing)
            }
        case .quit: feed.update { $0.quitting = true }
        case .session, .paste, .unknown, .help, .timeline, .resize, nil: break
        }
        publish()
    }
}
