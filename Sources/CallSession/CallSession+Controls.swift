import ChannelEngine

extension CallSession {
    /// Whether a token fetch is under way.
    public var fetchingToken: Bool { fetching != nil }

    /// Fetches a fresh token now and hands it over with the current renew method (or joins, when out).
    public func renewNow() {
        guard !ended else { return }
        guard fetching == nil else { return emit(.note("a token fetch is already under way")) }
        fetch(for: .manual)
    }

    public func setAutoRenew(_ on: Bool) {
        autoRenew = on
        emit(.note("auto-renew \(on ? "on" : "off")"))
    }

    public func setRenewMethod(_ method: RenewMethod) {
        renewMethod = method
        emit(.note("renew method \(method.rawValue)"))
    }
}
