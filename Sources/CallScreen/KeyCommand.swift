import CallSession
import Timers

/// What a key asks for: something of the call, or a change to the screen alone.
public enum KeyCommand: Equatable, Sendable {
    case session(SessionCommand)
    /// Shows the help overlay.
    case help
    /// Opens the field to paste the next token.
    case paste
    /// Changes the speed of the screen's clock (the call's or the replay's), or pauses or resumes it.
    case clock(ClockChange)
    /// Shows or hides the token timeline.
    case timeline
    case quit
    /// The terminal changed size: the next frame is drawn whole.
    case resize
    /// A key that does nothing, named for the log.
    case unknown(String)

    /// What `key` (as the terminal reads it) does on a screen in `mode`, by the mode's `KeyBinding.table`.
    init(key: Int32, in mode: KeyBinding.Mode = .call) {
        self = KeyBinding.table(mode).lazy.flatMap(\.keys).first { $0.key == key }?.command ?? .unknown(Self.name(of: key))
    }

    /// A printable ASCII key as itself in quotes ("'x'"), any other by its code.
    private static func name(of key: Int32) -> String {
        let scalar = UInt8(exactly: key).map(Unicode.Scalar.init)
        guard let scalar, scalar.isASCII, scalar.properties.generalCategory != .control else { return "code \(key)" }
        return "'\(Character(scalar))'"
    }
}

/// What the session does for a key.
public enum SessionCommand: Equatable, Sendable {
    case join, leave, rejoin, renew, toggleAutoRenew, nextRenewMethod, switchRole, addUser, removeUser
    case toggleNetwork, toggleServer, expire, cycleMistake

    /// Carries the command out on the session (one that does not apply says why in the log).
    @MainActor
    func perform(on session: CallSession) {
        switch self {
        case .join: session.join()
        case .leave: session.leave()
        case .rejoin: session.rejoin()
        case .renew: session.renewNow()
        case .toggleAutoRenew: session.setAutoRenew(!session.autoRenew)
        case .nextRenewMethod: session.setRenewMethod(session.renewMethod.next)
        case .switchRole: session.switchRole()
        case .addUser: session.addRemoteUser()
        case .removeUser: session.removeRemoteUser()
        case .toggleNetwork: session.toggleNetwork()
        case .toggleServer: session.toggleTokenServer()
        case .expire: session.expireNow()
        case .cycleMistake: session.cycleMistake()
        }
    }
}
