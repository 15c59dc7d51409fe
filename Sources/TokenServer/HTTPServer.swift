import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on plain sockets: one listening thread, one thread per connection (blocking calls
/// never touch Swift's cooperative pool), a bounded number of connections, and deadlines on every read.
final class HTTPServer: Sendable {
    struct Limits: Sendable {
        var maxConnections = 256
        /// A request must arrive whole within this long of its first byte.
        var requestDeadline: Duration = .seconds(10)
        /// A kept-alive connection with no request for this long is closed.
        var idleTimeout: Duration = .seconds(30)
        /// Stopping waits this long for requests under way.
        var drainTimeout: Duration = .seconds(2)
    }

    typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    typealias Logger = @Sendable (HTTPRequest?, HTTPResponse, Duration) -> Void

    private struct State {
        var open: Set<Int32> = []
        var busy: Set<Int32> = []
        var stopping = false
    }

    let port: UInt16
    private let listener: Socket
    private let limits: Limits
    private let handler: Handler
    private let log: Logger?
    private let state = Mutex(State())
    private let acceptorDone = Mutex(false)

    init(host: String, port: UInt16, limits: Limits = Limits(), log: Logger?, handler: @escaping Handler) throws(SocketError) {
        signal(SIGPIPE, SIG_IGN)
        (listener, self.port) = try Socket.listen(host: host, port: port)
        self.limits = limits
        self.handler = handler
        self.log = log
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "http-accept"
        thread.start()
    }

    /// Stops accepting, lets requests under way finish (up to the drain timeout), closes the rest.
    func stop() {
        let alreadyStopping = state.withLock { state in
            defer { state.stopping = true }
            return state.stopping
        }
        guard !alreadyStopping else { return }
        listener.shutdownBoth()
        let clock = ContinuousClock()
        let deadline = clock.now + limits.drainTimeout
        while clock.now < deadline, !(state.withLock { $0.busy.isEmpty } && acceptorDone.withLock { $0 }) {
            Thread.sleep(forTimeInterval: 0.005)
        }
        let leftover = state.withLock { $0.open }
        for fd in leftover { shutdown(fd, Int32(SHUT_RDWR)) }
        while clock.now < deadline + .milliseconds(500), !(state.withLock { $0.open.isEmpty }) {
            Thread.sleep(forTimeInterval: 0.005)
        }
        listener.close()
    }

    /// Connections open now.
    var connectionCount: Int { state.withLock { $0.open.count } }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    private func acceptLoop() {
        defer { acceptorDone.withLock { $0 = true } }
        while !isStopping {
            guard listener.waitReadable(milliseconds: 100) else { continue }
            guard !isStopping, let client = listener.accept() else { continue }
            let admitted = state.withLock { state -> Bool in
                guard state.open.count < limits.maxConnections, !state.stopping else { return false }
                state.open.insert(client.fd)
                return true
            }
            guard admitted else {
                let busy = HTTPResponse.error(503, "the server is at its limit of \(limits.maxConnections) connections; retry shortly",
                                              headers: [("Retry-After", "1")])
                client.send(busy.serialized(keepAlive: false))
                log?(nil, busy, .zero)
                client.close()
                continue
            }
            let thread = Thread { [self] in serve(client) }
            thread.name = "http-connection"
            thread.stackSize = 256 * 1024
            thread.start()
        }
    }

    private func serve(_ client: Socket) {
        defer {
            state.withLock { _ = $0.open.remove(client.fd); _ = $0.busy.remove(client.fd) }
            client.close()
        }
        let clock = ContinuousClock()
        var buffer: [UInt8] = []
        while true {
            // Wait for a request to start, in slices, so that stopping is noticed.
            var idleUntil = clock.now + limits.idleTimeout
            while buffer.isEmpty {
                if isStopping || clock.now >= idleUntil { return }
                guard client.waitReadable(milliseconds: 100) else { continue }
                guard let bytes = client.receive(), !bytes.isEmpty else { return }
                buffer = bytes
                idleUntil = clock.now + limits.idleTimeout
            }
            state.withLock { _ = $0.busy.insert(client.fd) }
            let started = clock.now
            let deadline = started + limits.requestDeadline
            var outcome = RequestReader.read(buffer)
            while case .incomplete = outcome {
                let left = deadline - clock.now
                guard left > .zero else {
                    respond(.error(408, "the request did not arrive whole within \(limits.requestDeadline)"), to: client,
                            for: nil, started: started, keepAlive: false)
                    return
                }
                let millis = Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000) + 1
                guard client.waitReadable(milliseconds: min(millis, 100)) else { continue }
                guard let bytes = client.receive(), !bytes.isEmpty else { return }
                buffer += bytes
                outcome = RequestReader.read(buffer)
            }
            switch outcome {
            case .incomplete:
                return
            case .refuse(let response):
                respond(response, to: client, for: nil, started: started, keepAlive: false)
                return
            case .request(let request, let consumed):
                buffer.removeFirst(consumed)
                let keepAlive = request.keepAlive && !isStopping
                respond(handler(request), to: client, for: request, started: started, keepAlive: keepAlive)
                state.withLock { _ = $0.busy.remove(client.fd) }
                if !keepAlive { return }
            }
        }
    }

    private func respond(_ response: HTTPResponse, to client: Socket, for request: HTTPRequest?, started: ContinuousClock.Instant,
                         keepAlive: Bool) {
        log?(request, response, ContinuousClock.now - started)
        client.send(response.serialized(keepAlive: keepAlive))
    }
}
