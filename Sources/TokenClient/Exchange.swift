import HTTP1
import Sockets
import TLS

/// One trip to a server on the transport's loop, from its start to its outcome: a request's (one hop of `send`), or the
/// TLS handshake alone that `tlsFacts` asks for. Its deadline is on the loop's heap; when it comes, or the caller
/// goes, the connection it holds is closed. Made off the loop and handed to it; used on the loop's thread only.
final class Exchange {
    enum Job {
        case request(RequestPlan, bodyLimit: Int, FirstOutcome<HTTPReply>)
        /// Connect and secure, and say what the handshake showed; its failure as the `TLSFailure` it is.
        case handshake(Destination, FirstOutcome<TLSFacts>)
    }

    enum Phase {
        /// Not yet taken by the pool.
        case starting
        /// Queued for a connection to its destination.
        case waiting
        case on(ClientConnection)
        case over
    }

    let job: Job
    let deadline: ContinuousClock.Instant
    /// What the deadline is called in the error it gives: the transport's limit, or the one asked for.
    let limit: Duration
    /// On a connection of its own, closed after it, instead of one of the pool's.
    let fresh: Bool
    var phase = Phase.starting
    private var timer: (EventLoop, EventLoop.Timer)?

    init(_ job: Job, deadline: ContinuousClock.Instant, limit: Duration, fresh: Bool) {
        self.job = job
        self.deadline = deadline
        self.limit = limit
        self.fresh = fresh
    }

    var destination: Destination {
        switch job {
        case .request(let plan, _, _): plan.destination
        case .handshake(let destination, _): destination
        }
    }

    var isOver: Bool {
        if case .over = phase { true } else { false }
    }

    /// Starts the deadline on `loop`.
    func arm(on loop: EventLoop) {
        timer = (loop, loop.schedule(at: deadline) { [self] in
            timer = nil
            fail(TokenClientError.timeout(limit))
        })
    }

    /// The caller has gone (already answered): its connection, if any, is closed.
    func cancel() { fail(CancellationError()) }

    /// The answer, for a request.
    func answer(_ reply: HTTPReply) {
        guard case .request(_, _, let outcome) = job else { return }
        outcome.finish(.success(reply))
        over()
    }

    /// What the handshake showed, for a handshake.
    func secured(_ facts: TLSFacts) {
        guard case .handshake(_, let outcome) = job else { return }
        outcome.finish(.success(facts))
        over()
    }

    /// Fails it with `error` (a `TLSFailure` in words for a request) and lets go of its connection.
    func fail(_ error: any Error) {
        guard !isOver else { return }
        var error = error
        let held = phase
        switch job {
        case .request(_, _, let outcome):
            if let failure = error as? TLSFailure { error = TokenClientError.transport(failure.description) }
            outcome.finish(.failure(error))
        case .handshake(_, let outcome):
            outcome.finish(.failure(error))
        }
        over()
        if case .on(let connection) = held { connection.abandon(self) }
    }

    private func over() {
        phase = .over
        if let (loop, held) = timer { loop.cancel(held) }
        timer = nil
    }
}
