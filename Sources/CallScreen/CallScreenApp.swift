import CallSession
import ChannelEngine
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// The call screen: session events and keys update the state, each frame renders it and presents what changed.
@MainActor
public final class CallScreenApp {
    private let session: CallSession
    private let presenter: TerminalPresenter
    private let frameInterval: DispatchTimeInterval
    private var state: ScreenState
    private var quitting = false
    /// The chrome last drawn, the state it shows, and a number that changes with each new chrome.
    private var chrome: (state: ScreenState, grid: CellGrid, version: Int)?
    /// A frame the presenter let go of, to draw the next one on without copying the chrome: its tiles are drawn
    /// over every frame, and the rest still is the chrome of `version`.
    private var spare: (grid: CellGrid, version: Int)?
    /// The chrome version of the frame the presenter holds.
    private var presentedVersion: Int?

    public init(session: CallSession, presenter: TerminalPresenter, fps: Int) {
        self.session = session
        self.presenter = presenter
        frameInterval = .microseconds(1_000_000 / max(1, min(60, fps)))
        let config = session.configuration
        state = ScreenState(channel: config.channel, uid: config.uid, role: config.role,
                            tokenServer: config.tokenURL?.absoluteString ?? "embedded", renewMethod: config.renewMethod,
                            autoRenew: config.autoRenew)
    }

    /// Runs until `q`, Ctrl-C, SIGTERM or SIGHUP; leaves the channel and gives the terminal back. Returns the exit status.
    public func run() async -> Int32 {
        session.onEvent = { [unowned self] event in
            state.now = session.configuration.unixTime()
            state.apply(event)
        }
        let signals = [SIGTERM, SIGHUP, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler { [unowned self] in MainActor.assumeIsolated { quitting = true } }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }
        do {
            try session.start()
        } catch {
            presenter.close()
            return 1
        }
        if let server = session.embeddedServer { state.tokenServer = "\(server.url) (embedded)" }
        // A dispatch timer on the main queue paces the frames: one wake-up per frame, with no task to resume.
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            let timer = DispatchSource.makeTimerSource(queue: .main)
            timer.schedule(deadline: .now(), repeating: frameInterval, leeway: .milliseconds(1))
            timer.setEventHandler { [unowned self] in
                MainActor.assumeIsolated {
                    guard !quitting else {
                        timer.cancel()
                        finished.resume()
                        return
                    }
                    frame()
                }
            }
            timer.resume()
        }
        session.stop()
        presenter.close()
        return 0
    }

    /// Reads the keys that came, then draws the state as it is now: the chrome again only if the state or the size
    /// changed, the video tiles over it every frame.
    private func frame() {
        while let key = presenter.readKey() { handle(KeyCommand(key: key)) }
        guard !quitting else { return }
        state.tick(unixTime: session.configuration.unixTime(), sessionTime: session.now)
        let (width, height) = presenter.size
        if chrome?.state != state || chrome?.grid.width != width || chrome?.grid.height != height {
            chrome = (state, ScreenRenderer.chrome(state, width: width, height: height, options: presenter.options),
                      (chrome?.version ?? 0) + 1)
        }
        let version = chrome!.version
        var grid = chrome!.grid
        if let taken = spare.take(), taken.version == version { grid = taken.grid }
        let engine = session.engine
        ScreenRenderer.drawMotion(state, into: &grid, options: presenter.options, video: { engine?.videoSource(forUid: $0) },
                                  at: engine?.now ?? .zero)
        if let released = presenter.present(grid), let presentedVersion { spare = (released, presentedVersion) }
        presentedVersion = version
    }

    private func handle(_ command: KeyCommand) {
        if state.showHelp, command != .resize, command != .quit {
            state.showHelp = false
            return
        }
        switch command {
        case .quit: quitting = true
        case .help: state.showHelp = true
        case .resize: presenter.invalidate()
        default: command.perform(on: session)
        }
    }
}
