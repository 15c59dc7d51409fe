import HubProtocol
import Sockets

/// One event loop serving many hub connections (the load tool runs a thousand on one). Every connection's state
/// belongs to the loop's thread, and every event is delivered on it; other threads hand it work through the loop.
public final class HubClientLoop: Sendable {
    /// Starts a connect for a connection on the loop: `Dial.start`, which tests wrap.
    typealias Dialer = @Sendable (_ host: String, _ port: UInt16, _ loop: EventLoop, _ deadline: ContinuousClock.Instant,
                                  _ completion: @escaping (Result<Socket, SocketError>) -> Void) -> Dial

    let loop: EventLoop
    let dial: Dialer
    let clients: LoopBound<HubClients>

    /// Starts the loop's thread; fails when the process has no file descriptor left for it.
    public convenience init() throws(SocketError) {
        try self.init(dial: { host, port, loop, deadline, completion in
            Dial.start(host: host, port: port, on: loop, until: deadline, completion: completion)
        })
    }

    /// A loop whose connections connect through `dial`.
    init(dial: @escaping Dialer) throws(SocketError) {
        loop = try EventLoop(name: "hub-client")
        self.dial = dial
        clients = LoopBound(handing: HubClients(), to: loop)
        loop.execute { [clients, loop] in
            loop.whenStopping { clients.value.closeAll() }
        }
    }

    /// Closes every connection and ends the loop's thread (joined, unless the last reference went on it).
    deinit { loop.stop() }
}

/// What a loop's thread keeps for all its connections.
final class HubClients {
    /// The connections opened and not closed.
    private var open: [ObjectIdentifier: HubConnection.Driver] = [:]
    /// Every connection's receives go through it, one at a time.
    var scratch = [UInt8](repeating: 0, count: Socket.receiveSize)

    func opened(_ driver: HubConnection.Driver) { open[ObjectIdentifier(driver)] = driver }

    func closed(_ driver: HubConnection.Driver) { open[ObjectIdentifier(driver)] = nil }

    func closeAll() {
        for driver in open.values { driver.closeForGood() }
        open = [:]
    }
}
