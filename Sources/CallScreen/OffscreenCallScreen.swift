import AccessToken
import CallSession

/// The call screen without a terminal, for pictures: it follows a session's events as the app does and draws the
/// screen as it is at the moment it is asked.
@MainActor
public final class OffscreenCallScreen {
    private let session: CallSession
    private var state: ScreenState

    /// Follows `session` from now on (through the session's `onEvent`, after whatever already follows it).
    public init(session: CallSession) {
        self.session = session
        state = ScreenState(for: session)
        let earlier = session.onEvent  // a recorder
        session.onEvent = { [unowned self] event in
            earlier?(event)
            state.now = session.configuration.unixTime()
            state.apply(event)
        }
    }

    /// The screen now, at `width`×`height` cells.
    public func grid(width: Int, height: Int, options: RenderOptions) -> CellGrid {
        var state = state
        state.tick(unixTime: session.configuration.unixTime(), sessionTime: session.now)
        return ScreenRenderer.render(state, width: width, height: height, options: options, video: { session.video(forUid: $0) },
                                     at: session.engine?.now ?? .zero)
    }
}

extension ScreenState {
    /// The screen of `session` before anything has happened in it.
    @MainActor
    public init(for session: CallSession) {
        let config = session.configuration
        let (uid, account) = config.uidAndAccount
        self.init(channel: config.channel, uid: uid, account: account, role: config.role, tokenServer: session.tokens.label,
                  renewMethod: config.renewMethod, autoRenew: config.autoRenew)
        clock = session.clockPhase ?? .running(speed: 1)
        hub = config.hub.map { HubStatus(address: $0.address) }
    }
}
