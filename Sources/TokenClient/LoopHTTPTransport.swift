import Foundation
import HTTP1
import PrintableText
import Sockets
import TLS

/// HTTP/1.1 of our own for http:// and https:// URLs (FoundationNetworking would trap on some answers, #5285), on one
/// event loop, `http-client`, shared by every transport in the process: connections made with `Dial`, each a
/// `LoopConnection` over a `Wire` (through a `TLSSession` for https://), its exchanges decided by a
/// `ClientConnectionMachine`, redirects by the rules of `Redirects`. Connections are kept alive and reused per origin
/// (and trust), at most `connectionsPerOrigin` at a time, the requests beyond waiting their turn; a request sent on a
/// kept connection that the server had let go goes once more on a new one. `limit` bounds the whole exchange,
/// redirects and waiting included; a cancelled caller is answered at once and its connection closed on the loop.
public final class LoopHTTPTransport: HTTPTransport {
    /// The longest a whole exchange may take unless the caller gives up first.
    public static let defaultLimit: Duration = .seconds(60)
    /// Connections open at once to one origin unless told otherwise.
    public static let defaultConnectionsPerOrigin = 6
    /// How long an idle connection is kept: less than the 5 s after which common servers (Node's) let one go.
    public static let defaultIdleLimit: Duration = .seconds(4)

    private let userAgent: String?
    private let limit: Duration
    private let trust: TLSTrust
    private let pool: Result<LoopBound<ConnectionPool>, TokenClientError>

    /// `userAgent` is sent unless the request names its own; https:// certificates are checked against `trust`; an
    /// idle connection is kept for `idleLimit`.
    public init(userAgent: String? = nil, limit: Duration = defaultLimit, trust: TLSTrust = .system,
                connectionsPerOrigin: Int = defaultConnectionsPerOrigin, idleLimit: Duration = defaultIdleLimit) {
        self.userAgent = userAgent
        self.limit = limit
        self.trust = trust
        pool = Self.loop.map { LoopBound(handing: ConnectionPool(on: $0, most: max(1, connectionsPerOrigin), idleLimit: idleLimit), to: $0) }
    }

    deinit {
        guard case .success(let pool) = pool else { return }
        pool.loop.execute { pool.value.shutDown() }
    }

    /// The loop every transport's connections live on, started when the first transport is made.
    private static let loop = Result { () throws(SocketError) in try EventLoop(name: "http-client") }
        .mapError { TokenClientError.transport("no thread could be started for HTTP connections (\($0.description))") }

    public func send(_ request: HTTPRequest, bodyLimit: Int) async throws -> (reply: HTTPReply, url: URL) {
        try await send(request, bodyLimit: bodyLimit, fresh: false)
    }

    /// `send`, each hop on a new connection closed after it.
    func send(_ request: HTTPRequest, bodyLimit: Int, fresh: Bool) async throws -> (reply: HTTPReply, url: URL) {
        let deadline = ContinuousClock.now + limit
        return try await Redirects.follow(request) { hop in
            let (reply, url) = try await exchange(hop, bodyLimit: bodyLimit, deadline: deadline, fresh: fresh)
            return (reply, url, Redirects.target(of: reply.status, location: reply.header("Location"), from: url))
        }
    }

    /// One request and its answer, no redirect followed.
    private func exchange(_ request: HTTPRequest, bodyLimit: Int, deadline: ContinuousClock.Instant,
                          fresh: Bool) async throws -> (reply: HTTPReply, url: URL) {
        let plan = try RequestPlan(request, userAgent: userAgent, trust: trust, closing: fresh)
        let reply = try await run(deadline: deadline, limit: limit, fresh: fresh) { .request(plan, bodyLimit: bodyLimit, $0) }
        return (reply, plan.url)
    }

    /// Runs the exchange `job` makes on the loop; answered at once when the calling task is cancelled.
    private func run<Value: Sendable>(deadline: ContinuousClock.Instant, limit: Duration, fresh: Bool,
                                      _ job: (FirstOutcome<Value>) -> Exchange.Job) async throws -> Value {
        let pool = try pool.get()
        let outcome = FirstOutcome<Value>()
        let exchange = LoopBound(handing: Exchange(job(outcome), deadline: deadline, limit: limit, fresh: fresh), to: pool.loop)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard outcome.start(continuation) else { return }
                if !pool.loop.execute({ pool.value.start(exchange.value) }) {
                    outcome.finish(.failure(TokenClientError.transport("the HTTP connections' thread has stopped")))
                }
            }
        } onCancel: {
            outcome.finish(.failure(CancellationError()))
            pool.loop.execute { exchange.value.cancel() }
        }
    }
}

/// What the TLS handshake with a server showed.
public struct TLSFacts: Sendable, Equatable {
    /// The version agreed, as OpenSSL names it (`TLSv1.3`).
    public let version: String
    public let certificate: TLSCertificate?
}

/// What `tokencall doctor` asks of a transport besides requests: the TLS handshake alone, one exchange whose redirect is
/// not followed (to see where plain http:// sends a client), and requests on connections of their own, for the checks
/// that measure connecting.
public protocol ServerProbe: Sendable {
    /// Connects to `url`'s host and port and runs the TLS handshake within `limit`: what it showed; a refused one
    /// throws its `TLSFailure`, anything else a `TokenClientError`.
    func tlsFacts(of url: URL, within limit: Duration) async throws -> TLSFacts
    /// One exchange, its redirect (if any) not followed.
    func sendOnce(_ request: HTTPRequest, bodyLimit: Int) async throws -> HTTPReply
    /// `send`, on a new connection closed after it (each redirect's too), as a client that has none open would.
    func sendOnNewConnection(_ request: HTTPRequest, bodyLimit: Int) async throws -> (reply: HTTPReply, url: URL)
}

extension LoopHTTPTransport: ServerProbe {
    public func tlsFacts(of url: URL, within limit: Duration) async throws -> TLSFacts {
        guard url.scheme?.lowercased() == "https" else {
            throw TokenClientError.unsendable("\(url.absoluteString.urlWithoutCredentials.escapedForPrinting) is not an https:// URL")
        }
        _ = try TLSContext.shared(trust)  // a CA file that cannot be read, as the TLSFailure it is
        let plan = try RequestPlan(HTTPRequest(url: url), userAgent: userAgent, trust: trust, closing: true)
        return try await run(deadline: .now + limit, limit: limit, fresh: true) { .handshake(plan.destination, $0) }
    }

    public func sendOnce(_ request: HTTPRequest, bodyLimit: Int) async throws -> HTTPReply {
        try await exchange(request, bodyLimit: bodyLimit, deadline: .now + limit, fresh: false).reply
    }

    public func sendOnNewConnection(_ request: HTTPRequest, bodyLimit: Int) async throws -> (reply: HTTPReply, url: URL) {
        try await send(request, bodyLimit: bodyLimit, fresh: true)
    }
}
