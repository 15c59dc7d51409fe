import Sockets

/// The transport's connections on its loop, by destination: at most `most` open to each, the idle ones kept for the
/// next request until `idleLimit` passes (`LoopHTTPTransport.defaultIdleLimit` unless told otherwise), the requests beyond `most` waiting their turn (at most `waitingLimit`). A
/// fresh exchange gets a connection of its own, outside these counts. Made off the loop and handed to it; used on the
/// loop's thread only.
final class ConnectionPool {
    /// Requests that may wait for a connection to one destination; more are refused at once.
    static let waitingLimit = 16_384

    let loop: EventLoop
    /// Where every connection's receive lands before it is read: one buffer for the loop's thread.
    var scratch = [UInt8](repeating: 0, count: Socket.receiveSize)
    private let most: Int
    private let idleLimit: Duration
    private var slots: [Destination: Slot] = [:]
    private var shut = false

    /// One destination's connections and the exchanges waiting for one.
    private struct Slot {
        /// Idle, the most recently used last.
        var idle: [ClientConnection] = []
        /// Open or opening, idle ones included.
        var open = 0
        var waiting: [Exchange] = []
        /// Where the next to serve is in `waiting`; the ones before it have been taken.
        var next = 0

        var isEmpty: Bool { open == 0 && next == waiting.count }

        mutating func nextWaiting() -> Exchange? {
            while next < waiting.count {
                let exchange = waiting[next]
                next += 1
                if next == waiting.count || (next >= 64 && next * 2 >= waiting.count) {
                    waiting.removeFirst(next)
                    next = 0
                }
                if !exchange.isOver { return exchange }
            }
            return nil
        }
    }

    init(on loop: EventLoop, most: Int, idleLimit: Duration) {
        precondition(most > 0, "at least one connection to each destination")
        self.loop = loop
        self.most = most
        self.idleLimit = idleLimit
    }

    /// Takes `exchange`: its deadline starts, and it goes on an idle connection, a new one, or waits for one.
    func start(_ exchange: Exchange) {
        guard case .starting = exchange.phase else { return }  // cancelled before it came
        exchange.arm(on: loop)
        guard !shut else { return exchange.fail(TokenClientError.transport("the transport was shut down")) }
        let destination = exchange.destination
        if exchange.fresh {
            _ = ClientConnection(to: destination, for: exchange, pooled: false, pool: self)
            return
        }
        // The slot is written back before anything that may call back into the pool.
        if let idle = slots[destination]?.idle.popLast() { return idle.run(exchange) }
        var slot = slots[destination, default: Slot()]
        if slot.open < most {
            slot.open += 1
            slots[destination] = slot
            _ = ClientConnection(to: destination, for: exchange, pooled: true, pool: self)
        } else if slot.waiting.count - slot.next < Self.waitingLimit {
            exchange.phase = .waiting
            slot.waiting.append(exchange)
            slots[destination] = slot
        } else {
            exchange.fail(TokenClientError.transport("more than \(Self.waitingLimit) requests wait for a connection to \(destination)"))
        }
    }

    /// `connection` has carried its exchange and may carry another.
    func released(_ connection: ClientConnection) {
        guard !shut else { return connection.close() }
        let destination = connection.destination
        if let next = slots[destination]?.nextWaiting() { return connection.run(next) }
        slots[destination]?.idle.append(connection)
        connection.idle(until: .now + idleLimit)
    }

    /// `connection` has closed; `retrying` goes again on a new one, else the next waiting exchange gets one.
    func closed(_ connection: ClientConnection, retrying: Exchange?) {
        if let retrying, !retrying.isOver {
            _ = ClientConnection(to: connection.destination, for: retrying, pooled: connection.pooled, pool: self)
            return
        }
        let destination = connection.destination
        guard connection.pooled, var slot = slots[destination] else { return }
        slot.idle.removeAll { $0 === connection }
        let next = shut ? nil : slot.nextWaiting()
        if next == nil { slot.open -= 1 }
        slots[destination] = slot.isEmpty ? nil : slot
        if let next { _ = ClientConnection(to: destination, for: next, pooled: true, pool: self) }
    }

    /// Closes the idle connections and keeps no more; exchanges under way end as they would.
    func shutDown() {
        shut = true
        for connection in slots.values.flatMap(\.idle) { connection.close() }
    }
}
