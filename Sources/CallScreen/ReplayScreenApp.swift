import CallSession

/// A recording played back on the call screen: the recorded events drive the same `ScreenState` the live call did,
/// on the replay's own clock (`<` and `>` change its speed, space pauses it), with the simulator's video drawn again
/// (`ReplayTrack.video`). There is no call, so no call keys: the key bar and the help offer the replay's keys only.
@MainActor
public final class ReplayScreenApp {
    private var track: ReplayTrack
    private let clock: ReplayClock
    private let presenter: TerminalPresenter
    private let fps: Int
    private var state: ScreenState
    private let feed: SharedFeed

    /// `state` is the screen before the first event (from the recording's header).
    public init(track: ReplayTrack, state: ScreenState, clock: ReplayClock, presenter: TerminalPresenter, fps: Int) {
        self.track = track
        self.clock = clock
        self.presenter = presenter
        self.fps = max(1, min(60, fps))
        var state = state
        state.now = track.unixTime(at: .zero)
        state.mode = .replay(speed: clock.setting.speed, phase: .playing)
        self.state = state
        feed = SharedFeed(ScreenFeed(state: state))
    }

    /// Plays the recording until `q`, Ctrl-C or `quit()`; the last state stays on the screen after the last event.
    public func run() async -> Int32 {
        let player = Task { @MainActor [weak self] in await self?.play() }
        let clock = clock, track = track
        await FrameThread.run(presenter: presenter, feed: feed, fps: fps, times: { _, _ in
            let position = min(clock.position, track.end)
            return (track.unixTime(at: position), position, position)
        }) { [weak self] key in self?.handle(key: key) }
        player.cancel()
        return 0
    }

    /// Ends the replay as `q` does (the app calls it on SIGTERM or SIGHUP).
    public func quit() {
        feed.update { $0.quitting = true }
    }

    /// Applies each event when the clock reaches it, looking again at least every 100 ms, since a key can change the
    /// speed or pause the clock while it waits.
    private func play() async {
        while let next = track.nextTime, !Task.isCancelled {
            let wait = clock.wallTime(until: next)
            if let wait, wait <= .zero {
                track.play(upTo: clock.position, into: &state)
                publish()
            } else {
                try? await Task.sleep(for: min(wait ?? .milliseconds(100), .milliseconds(100)))
            }
        }
        state.mode = .replay(speed: clock.setting.speed, phase: .ended)
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
        case .replay(let command):
            clock.perform(command)
            if case .replay(_, let phase) = state.mode, phase != .ended {
                let setting = clock.setting
                state.mode = .replay(speed: setting.speed, phase: setting.paused ? .paused : .playing)
            }
        case .quit: feed.update { $0.quitting = true }
        case .session, .paste, .unknown, .help, .timeline, .resize, nil: break
        }
        publish()
    }
}
