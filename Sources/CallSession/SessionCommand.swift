/// What a person asks of the session (a key of the call screen): each is one of its controls.
public enum SessionCommand: Equatable, Sendable {
    case join, leave, rejoin, renew, toggleAutoRenew, nextRenewMethod, switchRole, addUser, removeUser
    case toggleNetwork, toggleServer, expire, cycleMistake
    /// Puts a line in the event stream (a key that does nothing, say).
    case say(String)
}

extension CallSession {
    /// Carries `command` out (one that does not apply says why in the event stream).
    public func perform(_ command: SessionCommand) {
        switch command {
        case .join: join()
        case .leave: leave()
        case .rejoin: rejoin()
        case .renew: renewNow()
        case .toggleAutoRenew: setAutoRenew(!autoRenew)
        case .nextRenewMethod: setRenewMethod(renewMethod.next)
        case .switchRole: switchRole()
        case .addUser: addRemoteUser()
        case .removeUser: removeRemoteUser()
        case .toggleNetwork: toggleNetwork()
        case .toggleServer: toggleTokenServer()
        case .expire: expireNow()
        case .cycleMistake: cycleMistake()
        case .say(let text): say(text)
        }
    }
}
