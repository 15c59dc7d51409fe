import CallSession

/// What a key asks the call to do.
public enum KeyCommand: Equatable, Sendable {
    case join, leave, rejoin, renew, toggleAutoRenew, nextRenewMethod, switchRole, addUser, removeUser
    case toggleNetwork, toggleServer, expire, help, quit, resize
    /// A key that does nothing, named for the log.
    case unknown(String)

    public init(key: Int32) {
        switch key {
        case 106: self = .join              // j
        case 108: self = .leave             // l
        case 114: self = .rejoin            // r
        case 110: self = .renew             // n
        case 97: self = .toggleAutoRenew    // a
        case 109: self = .nextRenewMethod   // m
        case 99: self = .switchRole         // c
        case 43, 61: self = .addUser        // + (or = without shift)
        case 45: self = .removeUser         // -
        case 105: self = .toggleNetwork     // i
        case 115: self = .toggleServer      // s
        case 101: self = .expire            // e
        case 63: self = .help               // ?
        case 113, 3: self = .quit           // q, Ctrl-C
        case 410: self = .resize            // KEY_RESIZE
        default:
            let name = (32..<127).contains(key) ? "'\(Character(Unicode.Scalar(UInt8(key))))'" : "code \(key)"
            self = .unknown(name)
        }
    }

    /// Carries the command out on the session (keys that do not apply say why in the log).
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
        case .unknown(let name): session.say("key \(name) does nothing; press ? for the keys")
        case .help, .quit, .resize: break
        }
    }
}
