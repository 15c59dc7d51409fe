import Dispatch
import Foundation
import HubProtocol
import Sockets
import Synchronization
import Timers
#if canImport(Glibc)
import Glibc
#endif

/// One poll(2) thread serving many hub connections (the load tool runs a thousand on one). Every connection's
/// state belongs to this thread, and every event is delivered on it; other threads hand it work through a mailbox.
public final class HubClientLoop: Sendable {
    let core: LoopCore

    /// Starts the loop's thread; fails when the process has no file descriptor left for its wake pipe.
    public convenience init() throws(SocketError) {
        try self.init(connector: { host, port, deadline throws(SocketError) in try Socket.connect(host: host, port: port, until: deadline) })
    }

    /// A loop that connects with `connector` (tests pass one that never answers).
    init(connector: @escaping LoopCore.Connector) throws(SocketError) {
        core = try LoopCore(connector: connector)
        let core = self.core
        let thread = Thread { core.run() }
        thread.name = "hub-client"
        thread.start()
    }

    /// Ends the thread once the last connection and the loop itself are gone.
    deinit { core.stop() }
}

/// The loop's thread and what it owns.
final class LoopCore: @unchecked Sendable {
    enum Command: Sendable {
        case open(HubConnection, @Sendable (HubLinkEvent) -> Void)
        case send(HubConnection, frame: [UInt8], isVideo: Bool)
        case silent(HubConnection, Bool)
        case close(HubConnection)
        case drop(HubConnection, reason: String)
        case connectFinished(HubConnection, attempt: Int, Result<Socket, SocketError>)
    }

    /// Connects to a host and port within a number of milliseconds, blocking.
    typealias Connector = @Sendable (String, UInt16, ContinuousClock.Instant) throws(SocketError) -> Socket

    let mailbox: Mailbox<Command>
    private let connector: Connector
    private let stopping = Atomic(false)
    let clock = ContinuousClock()
    // The rest belongs to the loop's thread.
    /// The connections opened and not closed, in the order they were opened.
    private var connections: [HubConnection] = []
    private var scratch = [UInt8](repeating: 0, count: Socket.receiveSize)

    init(connector: @escaping Connector) throws(SocketError) {
        mailbox = try Mailbox()
        self.connector = connector
    }

    func hand(_ command: Command) { mailbox.hand(command) }

    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        mailbox.wake()
    }

    /// Connects off the loop's thread (a name lookup or a far host must not stall the others), then hands the
    /// socket back.
    func connect(_ connection: HubConnection, attempt: Int, within limit: Duration) {
        let address = connection.dialing
        DispatchQueue.global().async { [self] in
            let result = Result { () throws(SocketError) in
                try connector(address.host, address.port, .now + limit)
            }
            if stopping.load(ordering: .sequentiallyConsistent), case .success(let socket) = result { return socket.close() }
            hand(.connectFinished(connection, attempt: attempt, result))
        }
    }

    func run() {
        var order: [HubConnection] = []
        var polled: [pollfd] = []
        while !stopping.load(ordering: .sequentiallyConsistent) {
            let now = clock.now
            var next = now + .seconds(1)
            order.removeAll(keepingCapacity: true)
            polled.removeAll(keepingCapacity: true)
            polled.append(pollfd(fd: mailbox.wakeRead, events: Int16(POLLIN), revents: 0))
            for connection in connections {
                connection.checkTimes(now)
                if let deadline = connection.nextDeadline { next = min(next, deadline) }
                if let (fd, events) = connection.pollInterest {
                    order.append(connection)
                    polled.append(pollfd(fd: fd, events: events, revents: 0))
                }
            }
            let wait = Int32(clamping: max(0, (next - now).wholeMilliseconds + 1))
            guard poll(&polled, nfds_t(polled.count), wait) > 0 else { continue }
            for (index, connection) in order.enumerated() where polled[index + 1].revents != 0 {
                connection.ready(polled[index + 1].revents, scratch: &scratch)
            }
            if polled[0].revents != 0 { for command in mailbox.takeNew() { apply(command) } }
        }
        for command in mailbox.takeNew() {
            if case .connectFinished(_, _, .success(let socket)) = command { socket.close() }
        }
        for connection in connections { connection.closeForGood() }
        connections = []
    }

    private func apply(_ command: Command) {
        switch command {
        case .open(let connection, let events):
            if connection.begin(events: events) { connections.append(connection) }
        case .send(let connection, let frame, let isVideo): connection.enqueue(frame, isVideo: isVideo)
        case .silent(let connection, let silent): connection.changeSilence(silent)
        case .close(let connection):
            connection.closeForGood()
            connections.removeAll { $0 === connection }
        case .drop(let connection, let reason): connection.abandon(reason)
        case .connectFinished(let connection, let attempt, let result): connection.connectFinished(attempt: attempt, result)
        }
    }
}
