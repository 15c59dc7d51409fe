import Foundation
import HTTP1
import PrintableText
import Sockets
import TLS
import Timers

/// HTTP/1.1 of our own for http:// and https:// URLs (FoundationNetworking would trap on some answers, #5285): one
/// request per connection (`Connection: close`), the answer read by HTTP1's `ResponseParser`, redirects by the rules of
/// `Redirects`. For https:// a `TLSSession` (OpenSSL over memory BIOs) sits between the socket and the HTTP bytes, so
/// the handshake runs under the exchange's deadline like any read.
///
/// Each exchange runs on a thread of its own (or, given `workers`, on one of that many, in turn), waiting in slices of
/// `slice` so that a cancel (the token cache's deadline) closes the connection soon after the caller, who is answered
/// at once, has gone. `limit` bounds the whole exchange, redirects included, when nothing cancels it sooner.
public struct SocketHTTPTransport: HTTPTransport {
    /// The longest a whole exchange may take unless the caller gives up first.
    public static let defaultLimit: Duration = .seconds(60)
    /// How long the exchange's thread waits on the socket before it looks whether the caller has gone.
    static let slice: Duration = .milliseconds(50)

    private let userAgent: String?
    private let limit: Duration
    private let trust: TLSTrust
    private let workers: ExchangeWorkers?

    /// `userAgent` is sent unless the request names its own; https:// certificates are checked against `trust`.
    /// With `workers` (1 or more), this transport and its copies run at most that many exchanges at a time, each on one
    /// of as many threads, and the others wait their turn (their deadline running, a cancel answered at once); without,
    /// every exchange starts at once on a thread of its own.
    public init(userAgent: String? = nil, limit: Duration = defaultLimit, trust: TLSTrust = .system, workers: Int? = nil) {
        self.userAgent = userAgent
        self.limit = limit
        self.trust = trust
        self.workers = workers.map { ExchangeWorkers(most: $0) }
    }

    public func send(_ request: HTTPRequest, bodyLimit: Int) async throws -> (reply: HTTPReply, url: URL) {
        let deadline = ContinuousClock.now + limit
        return try await Redirects.follow(request) { hop in
            let (reply, url) = try await exchange(hop, bodyLimit: bodyLimit, deadline: deadline)
            return (reply, url, Redirects.target(of: reply.status, location: reply.header("Location"), from: url))
        }
    }

    /// One request and its answer, on a thread; the caller is answered at once when its task is cancelled, and an
    /// exchange cancelled while it waits for a worker never starts.
    private func exchange(_ request: HTTPRequest, bodyLimit: Int, deadline: ContinuousClock.Instant) async throws -> (reply: HTTPReply, url: URL) {
        let plan = try Plan(request, userAgent: userAgent, trust: trust)
        let outcome = FirstOutcome()
        let limit = limit
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard outcome.start(continuation) else { return }
                onThread {
                    guard !outcome.isKnown else { return }
                    outcome.finish(Result {
                        try plan.run(bodyLimit: bodyLimit, deadline: deadline, limit: limit, abandoned: { outcome.isKnown })
                    })
                }
            }
        } onCancel: {
            outcome.finish(.failure(CancellationError()))
        }
    }

    /// Runs blocking work on a worker when there are workers, else on a thread of its own.
    private func onThread(_ work: @escaping @Sendable () -> Void) {
        if let workers { workers.run(work) } else { Thread.detachNewThread(work) }
    }
}

/// What the TLS handshake with a server showed.
public struct TLSFacts: Sendable, Equatable {
    /// The version agreed, as OpenSSL names it (`TLSv1.3`).
    public let version: String
    public let certificate: TLSCertificate?
}

/// What `tokencall doctor` asks of a transport besides requests: the TLS handshake alone, and one exchange whose
/// redirect is not followed (to see where plain http:// sends a client).
public protocol ServerProbe: Sendable {
    /// Connects to `url`'s host and port and runs the TLS handshake within `limit`: what it showed; a refused one
    /// throws its `TLSFailure`, anything else a `TokenClientError`.
    func tlsFacts(of url: URL, within limit: Duration) async throws -> TLSFacts
    /// One exchange, its redirect (if any) not followed.
    func sendOnce(_ request: HTTPRequest, bodyLimit: Int) async throws -> HTTPReply
}

extension SocketHTTPTransport: ServerProbe {
    public func tlsFacts(of url: URL, within limit: Duration) async throws -> TLSFacts {
        let plan = try Plan(HTTPRequest(url: url), userAgent: userAgent, trust: trust)
        let deadline = ContinuousClock.now + limit
        return try await withCheckedThrowingContinuation { continuation in
            onThread { continuation.resume(with: Result { try plan.facts(deadline: deadline, limit: limit) }) }
        }
    }

    public func sendOnce(_ request: HTTPRequest, bodyLimit: Int) async throws -> HTTPReply {
        try await exchange(request, bodyLimit: bodyLimit, deadline: ContinuousClock.now + limit).reply
    }
}

/// A request as bytes, and where to send them.
private struct Plan: Sendable {
    let url: URL
    let host: String
    let port: UInt16
    let method: String
    let bytes: [UInt8]
    /// For https://, the trust its certificate is checked against.
    let trust: TLSTrust?

    /// Headers the transport writes itself, whatever the request says.
    private static let framing: Set<String> = ["host", "connection", "content-length", "transfer-encoding"]

    init(_ request: HTTPRequest, userAgent: String?, trust: TLSTrust) throws(TokenClientError) {
        let scheme = request.url?.scheme?.lowercased()
        guard let url = request.url, scheme == "http" || scheme == "https", var host = url.host, !host.isEmpty else {
            throw .unsendable("\(request.target.urlWithoutCredentials.escapedForPrinting) is not an http:// or https:// URL with a host")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let defaultPort = scheme == "https" ? 443 : 80
        let port = url.port ?? defaultPort
        guard let port = UInt16(exactly: port), port > 0 else { throw .unsendable("the port \(port) is not 1 to 65535") }
        let method = request.method
        guard HTTPRequest.isMethod(method) else {
            throw .unsendable("the method \(method.escapedForPrinting) is not an HTTP method")
        }
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        let path = components?.percentEncodedPath ?? ""
        let target = (path.isEmpty ? "/" : path) + (components?.percentEncodedQuery.map { "?\($0)" } ?? "")
        let shownHost = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        var fields: HTTPFields = [("Host", shownHost + (port == defaultPort ? "" : ":\(port)")), ("Connection", "close")]
        for field in request.fields where !Self.framing.contains(field.name.lowercased()) {
            guard field.isSendable else {
                throw .unsendable("the header \(field.name.escapedForPrinting) cannot be sent: its name is not a token, or its value holds a line break")
            }
            fields.append(field.name, field.value)
        }
        if let userAgent, !request.fields.contains("User-Agent") { fields.append("User-Agent", userAgent) }
        if !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { fields.append("Content-Length", String(request.body.count)) }
        self.url = url
        self.host = host
        self.port = port
        self.method = method
        self.trust = scheme == "https" ? trust : nil
        bytes = HTTPRequest(method: method, target: target, fields: fields, body: request.body).serialized()
    }

    /// Connects, sends and reads the answer, all before `deadline`; gives up (`CancellationError`) once `abandoned`.
    func run(bodyLimit: Int, deadline: ContinuousClock.Instant, limit: Duration,
             abandoned: @escaping () -> Bool) throws -> (reply: HTTPReply, url: URL) {
        var link: Link
        let tls: TLSSession?
        (link, tls) = try Self.tls { try open(deadline: deadline, limit: limit, abandoned: abandoned) }
        defer { link.socket.close() }
        let closed = TokenClientError.transport("the server closed the connection while the request was being sent")
        if let tls {
            try Self.tls { try tls.write(bytes) }
            try link.sendAll(tls.takeOutgoing(), orThrow: closed)
        } else {
            try link.sendAll(bytes, orThrow: closed)
        }

        var parser = ResponseParser(bodyLimit: bodyLimit, method: method)
        var plaintext: [UInt8] = []
        while true {
            guard link.socket.waitReadable(milliseconds: try link.nextWait()) else { continue }
            let received = link.receive()
            var ended = received == .closed
            var chunk = link.arrived[...]
            if let tls {
                if ended { tls.receivedEnd() } else { tls.received(chunk) }
                plaintext.removeAll(keepingCapacity: true)
                ended = try Self.tls { try tls.read(into: &plaintext) }
                chunk = plaintext[...]
            }
            var parse = chunk.isEmpty ? .needMore : parser.read(chunk)
            if parse == .needMore, ended { parse = parser.closed() }
            switch parse {
            case .needMore: continue
            case .response(let reply): return (reply, url)
            case .failed(let failure): throw failure.clientError
            }
        }
    }

    /// Connects and runs the TLS handshake alone, before `deadline`: what it showed, or the `TLSFailure` as it is.
    func facts(deadline: ContinuousClock.Instant, limit: Duration) throws -> TLSFacts {
        guard trust != nil else { throw TokenClientError.unsendable("\(url.absoluteString.urlWithoutCredentials.escapedForPrinting) is not an https:// URL") }
        let (link, session) = try open(deadline: deadline, limit: limit, abandoned: { false })
        defer { link.socket.close() }
        guard let session else { preconditionFailure("an https:// plan opens a TLS session") }
        return TLSFacts(version: session.version, certificate: session.peerCertificate)
    }

    /// Connects before `deadline` and, for https://, runs the TLS handshake under the same waits: the link, and the
    /// session whose handshake is done; a `TLSFailure` as it is, a failed connect as a `TokenClientError`.
    private func open(deadline: ContinuousClock.Instant, limit: Duration, abandoned: @escaping () -> Bool) throws -> (Link, TLSSession?) {
        guard deadline > ContinuousClock.now else { throw TokenClientError.timeout(limit) }
        let context = try trust.map { try TLSContext.shared($0) }
        let socket: Socket
        do {
            socket = try Socket.connect(host: host, port: port, until: deadline, abandoned: abandoned, slice: SocketHTTPTransport.slice)
        } catch {
            if error == .abandoned { throw CancellationError() }
            throw TokenClientError.transport(Self.words(error))
        }
        var link = Link(socket: socket, deadline: deadline, limit: limit, abandoned: abandoned)
        guard let context else { return (link, nil) }
        do {
            let session = try TLSSession(context: context, host: host)
            let closed = session.peer.closed(during: "the handshake")
            while try !session.handshake() {
                try link.sendAll(session.takeOutgoing(), orThrow: closed)
                guard socket.waitReadable(milliseconds: try link.nextWait()) else { continue }
                switch link.receive() {
                case .received: session.received(link.arrived[...])
                case .nothingYet: break
                case .closed: session.receivedEnd()
                }
            }
            try link.sendAll(session.takeOutgoing(), orThrow: closed)
            return (link, session)
        } catch {
            socket.close()
            throw error
        }
    }

    /// A TLS failure as the token client's error.
    private static func tls<T>(_ step: () throws -> T) throws -> T {
        do { return try step() } catch let failure as TLSFailure { throw TokenClientError.transport(failure.description) }
    }

    /// A failed connect in words: "connection refused", "no answer in time", "cannot find host …".
    private static func words(_ error: SocketError) -> String {
        guard error.operation.hasPrefix("cannot connect") else { return error.description }
        return error.reason.prefix(1).lowercased() + error.reason.dropFirst()
    }
}

/// A connected socket and the waits on it: each wait ends by `deadline`, and gives up (`CancellationError`) once
/// `abandoned`.
private struct Link {
    let socket: Socket
    let deadline: ContinuousClock.Instant
    let limit: Duration
    let abandoned: () -> Bool
    /// What the last `receive` brought.
    private(set) var arrived: [UInt8] = []
    private var scratch = [UInt8](repeating: 0, count: Socket.receiveSize)

    init(socket: Socket, deadline: ContinuousClock.Instant, limit: Duration, abandoned: @escaping () -> Bool) {
        self.socket = socket
        self.deadline = deadline
        self.limit = limit
        self.abandoned = abandoned
    }

    /// Milliseconds of the next wait: a slice, or what is left before the deadline.
    func nextWait() throws -> Int32 {
        if abandoned() { throw CancellationError() }
        let left = deadline - ContinuousClock.now
        guard left > .zero else { throw TokenClientError.timeout(limit) }
        return Int32(clamping: min(left, SocketHTTPTransport.slice).wholeMilliseconds + 1)
    }

    /// Sends all of `bytes`, waiting while the socket is full; `closed` when the peer goes first.
    func sendAll(_ bytes: [UInt8], orThrow closed: any Error) throws {
        var sent = 0
        while sent < bytes.count {
            switch socket.sendSome(bytes, from: sent) {
            case .sent(let count): sent += count
            case .full: _ = socket.waitWritable(milliseconds: try nextWait())
            case .failed: throw closed
            }
        }
    }

    /// One receive into `arrived`, which it replaces.
    mutating func receive() -> Socket.Received {
        arrived.removeAll(keepingCapacity: true)
        return socket.receive(appendingTo: &arrived, scratch: &scratch)
    }
}
