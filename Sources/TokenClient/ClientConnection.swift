import HTTP1
import Sockets
import TLS

/// One connection to a server on the transport's loop: a `Dial`, then a `LoopConnection` over a `Wire` (through TLS for
/// https://), carrying exchanges one at a time as its `ClientConnectionMachine` says. Used on the loop's thread only.
final class ClientConnection {
    private enum Phase {
        /// Made; the dial starts at the loop's next turn.
        case starting
        case dialing(Dial)
        case handshaking(LoopConnection, TLSSession)
        case open(LoopConnection, TLSSession?)
        case closed
    }

    let destination: Destination
    /// Kept by the pool between exchanges; a fresh connection carries one and closes.
    let pooled: Bool
    let loop: EventLoop
    private let pool: ConnectionPool
    private var phase = Phase.starting
    private var machine = ClientConnectionMachine()
    /// What it carries now; nil while idle.
    private var exchange: Exchange?

    /// A connection to `destination` for `exchange`, started at the loop's next turn (so that a dial that fails at once
    /// does not start the next one inside this call).
    init(to destination: Destination, for exchange: Exchange, pooled: Bool, pool: ConnectionPool) {
        self.destination = destination
        self.pooled = pooled
        self.pool = pool
        loop = pool.loop
        take(exchange)
        let bound = LoopBound(self, on: loop)
        loop.execute { bound.value.dial() }
    }

    private var isClosed: Bool {
        if case .closed = phase { true } else { false }
    }

    /// Carries `exchange` on this idle connection.
    func run(_ exchange: Exchange) {
        guard case .open(let link, _) = phase else { return exchange.fail(TokenClientError.transport("the connection closed")) }
        link.disarm()
        take(exchange)
        begin(on: link)
    }

    /// Idle until `due`, then closed (unless an exchange takes it first).
    func idle(until due: ContinuousClock.Instant) {
        guard case .open(let link, _) = phase else { return }
        link.arm(at: due)
    }

    /// `exchange` has ended elsewhere (its deadline, its caller gone): whatever it was doing here stops, and the
    /// connection closes (the server may still be answering it).
    func abandon(_ exchange: Exchange) {
        guard self.exchange === exchange else { return }
        self.exchange = nil
        close()
    }

    /// Closes it, once, and tells the pool; `retrying` is sent again on a new connection.
    func close(retrying: Exchange? = nil) {
        switch phase {
        case .closed: return
        case .starting: break
        case .dialing(let dial): dial.cancel()
        case .handshaking(let link, _), .open(let link, _): link.close()
        }
        phase = .closed
        _ = machine.giveUp()
        if let exchange, exchange !== retrying { exchange.fail(TokenClientError.transport("the connection closed")) }
        exchange = nil
        pool.closed(self, retrying: retrying)
    }

    // MARK: -

    private func take(_ exchange: Exchange) {
        self.exchange = exchange
        exchange.phase = .on(self)
    }

    private func dial() {
        guard case .starting = phase, let exchange else { return }
        let dial = Dial.start(host: destination.host, port: destination.port, on: loop, until: exchange.deadline) { [self] result in
            dialed(result)
        }
        if case .starting = phase { phase = .dialing(dial) }
    }

    private func dialed(_ result: Result<Socket, SocketError>) {
        let socket: Socket
        switch result {
        case .failure(let error):
            // The dial's deadline is the exchange's: when it came, the exchange's own words say so.
            if let exchange, ContinuousClock.now >= exchange.deadline { return fail(TokenClientError.timeout(exchange.limit)) }
            return fail(TokenClientError.transport(Self.words(error)))
        case .success(let connected): socket = connected
        }
        guard let trust = destination.trust else {
            let link = connect(Wire(socket))
            phase = .open(link, nil)
            return begin(on: link)
        }
        do throws(TLSFailure) {
            let session = try TLSSession(context: try TLSContext.shared(trust), host: destination.host)
            let wire = Wire(socket, tls: session)
            try wire.start()
            let link = connect(wire)
            phase = .handshaking(link, session)
            flush(link)
        } catch {
            socket.close()
            fail(error)
        }
    }

    private func connect(_ wire: Wire) -> LoopConnection {
        LoopConnection(wire, on: loop, ready: { [self] readiness in ready(readiness) }, deadline: { [self] in act(machine.giveUp()) })
    }

    /// Sends the exchange's request, or for a handshake says what it showed and closes.
    private func begin(on link: LoopConnection) {
        guard let exchange else { return }
        switch exchange.job {
        case .request(let plan, let bodyLimit, _):
            act(machine.send(plan.bytes, method: plan.method, bodyLimit: bodyLimit))
        case .handshake:
            if case .open(_, let session?) = phase {
                self.exchange = nil
                exchange.secured(TLSFacts(version: session.version, certificate: session.peerCertificate))
            }
            close()
        }
    }

    private func ready(_ readiness: EventLoop.Readiness) {
        guard let link else { return }
        if readiness.writable, link.wire.queued > 0 {
            flush(link)
            guard !isClosed else { return }
        }
        if readiness.readable { receive(link) }
    }

    private var link: LoopConnection? {
        switch phase {
        case .handshaking(let link, _), .open(let link, _): link
        case .starting, .dialing, .closed: nil
        }
    }

    private func receive(_ link: LoopConnection) {
        switch link.wire.receive(scratch: &pool.scratch) {
        case .nothing:
            break
        case .secured(let plaintext):
            guard case .handshaking(_, let session) = phase else { return }
            phase = .open(link, session)
            begin(on: link)
            if !plaintext.isEmpty, !isClosed { act(machine.received(plaintext[...])) }
        case .data(let plaintext):
            act(machine.received(plaintext[...]))
        case .ended(let plaintext):
            if !plaintext.isEmpty { act(machine.received(plaintext[...])) }
            act(machine.closed())
        case .refused(let failure):
            _ = link.wire.flush()  // the alert, for the server to learn why
            return fail(failure)
        }
        if !isClosed, link.wire.queued > 0 { flush(link) }
    }

    private func flush(_ link: LoopConnection) {
        switch link.wire.flush() {
        case .done:
            machine.sent()
            link.wait(for: .read)
        case .partial:
            link.wait(for: [.read, .write])
        case .failed:
            if case .handshaking = phase { return fail(TLSPeer.server.closed(during: "the handshake")) }
            act(machine.closed())
        }
    }

    private func act(_ action: ClientConnectionMachine.Action) {
        switch action {
        case .wait:
            break
        case .write(let bytes):
            guard let link else { return }
            do throws(TLSFailure) { try link.wire.queue(bytes) } catch { return fail(error) }
            flush(link)
        case .answer(let reply, let keepAlive):
            let answered = exchange
            exchange = nil
            answered?.answer(reply)
            if keepAlive && pooled { pool.released(self) } else { close() }
        case .fail(let failure):
            fail(failure.clientError)
        case .retry:
            close(retrying: exchange)
        case .close:
            close()
        case .busy:
            fail(TokenClientError.transport("a request was sent on a connection still carrying another"))
        }
    }

    private func fail(_ error: any Error) {
        let failed = exchange
        exchange = nil
        failed?.fail(error)
        close()
    }

    /// A failed connect in words: "connection refused", "no answer in time", "cannot find host …".
    private static func words(_ error: SocketError) -> String {
        guard error.operation.hasPrefix("cannot connect") else { return error.description }
        return error.reason.prefix(1).lowercased() + error.reason.dropFirst()
    }
}
