import Dispatch
import HubProtocol
import Sockets
import Synchronization
import Timers

/// One event loop serving many hub connections (the load tool runs a thousand on one). Every connection's state
/// belongs to the loop's thread, and every event is delivered on it; other threads hand it work through the loop.
public final class HubClientLoop: Sendable {
    let core: LoopCore

    /// Starts the loop's thread; fails when the process has no file descriptor left for it.
    public convenience init() throws(SocketError) {
        try self.init(connector: { host, port, deadline throws(SocketError) in try Socket.connect(host: host, port: port, until: deadline) })
    }

    /// A loop that connects with `connector` (tests pass one that never answers).
    init(connector: @escaping LoopCore.Connector) throws(SocketError) {
        core = try LoopCore(connector: connector)
    }

    /// Closes every connection and ends the loop's thread (joined, unless the last reference went on it).
    deinit { core.stop() }
}

/// The loop and what its thread owns.
final class LoopCore: @unchecked Sendable {
    enum Command: Sendable {
        case open(HubConnection, @Sendable (HubLinkEvent) -> Void)
        case send(HubConnection, frame: [UInt8], isVideo: Bool)
        case silent(HubConnection, Bool)
        case close(HubConnection)
        case drop(HubConnection, reason: String)
        case connectFinished(HubConnection, attempt: Int, Result<Socket, SocketError>)
    }

    /// Connects to a host and port before a deadline, blocking.
    typealias Connector = @Sendable (String, UInt16, ContinuousClock.Instant) throws(SocketError) -> Socket

    let loop: EventLoop
    private let connector: Connector
    let clock = ContinuousClock()
    // The rest belongs to the loop's thread.
    /// The connections opened and not closed.
    private var connections: [ObjectIdentifier: HubConnection] = [:]
    var scratch = [UInt8](repeating: 0, count: Socket.receiveSize)

    init(connector: @escaping Connector) throws(SocketError) {
        loop = try EventLoop(name: "hub-client")
        self.connector = connector
        loop.execute { [self] in  // the hook is the loop thread's to add; it runs before any work handed after it
            loop.whenStopping { [self] in  // the cycle ends with the loop, which drops its hooks
                for connection in connections.values { connection.closeForGood() }
                connections = [:]
            }
        }
    }

    func hand(_ command: Command) {
        guard !loop.isStopping, loop.execute({ [self] in apply(command) }) else {
            if case .connectFinished(_, _, .success(let socket)) = command { socket.close() }
            return
        }
    }

    func stop() { loop.stop() }

    /// Connects off the loop's thread (a name lookup or a far host must not stall the others), then hands the
    /// socket back.
    func connect(_ connection: HubConnection, to address: HubAddress, attempt: Int, within limit: Duration) {
        DispatchQueue.global().async { [self] in
            let result = Result { () throws(SocketError) in
                try connector(address.host, address.port, .now + limit)
            }
            hand(.connectFinished(connection, attempt: attempt, result))
        }
    }

    private func apply(_ command: Command) {
        guard !loop.isStopping else {  // handed over as the loop ended
            if case .connectFinished(_, _, .success(let socket)) = command { socket.close() }
            return
        }
        switch command {
        case .open(let connection, let events):
            if connection.begin(events: events) { connections[ObjectIdentifier(connection)] = connection }
        case .send(let connection, let frame, let isVideo): connection.enqueue(frame, isVideo: isVideo)
        case .silent(let connection, let silent): connection.changeSilence(silent)
        case .close(let connection):
            connection.closeForGood()
            connections[ObjectIdentifier(connection)] = nil
        case .drop(let connection, let reason): connection.abandon(reason)
        case .connectFinished(let connection, let attempt, let result): connection.connectFinished(attempt: attempt, result)
        }
        connection(of: command).settle()
    }

    private func connection(of command: Command) -> HubConnection {
        switch command {
        case .open(let connection, _), .send(let connection, _, _), .silent(let connection, _), .close(let connection),
             .drop(let connection, _), .connectFinished(let connection, _, _): connection
        }
    }
}
