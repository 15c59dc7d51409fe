import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PrintableText
import Sockets
import TLS
import Timers

/// HTTP/1.1 of our own for http:// and https:// URLs (FoundationNetworking would trap on some answers, #5285): one
/// request per connection (`Connection: close`), the answer read by `HTTPResponseReader`, redirects by the rules of
/// `Redirects`. For https:// a `TLSSession` (OpenSSL over memory BIOs) sits between the socket and the HTTP bytes, so
/// the handshake runs under the exchange's deadline like any read.
///
/// Each exchange runs on a thread of its own, waiting in slices of `slice` so that a cancel (the token cache's deadline)
/// closes the connection soon after the caller, who is answered at once, has gone. `limit` bounds the whole exchange,
/// redirects included, when nothing cancels it sooner.
public struct SocketHTTPTransport: HTTPTransport {
    /// The longest a whole exchange may take unless the caller gives up first.
    public static let defaultLimit: Duration = .seconds(60)
    /// How long the exchange's thread waits on the socket before it looks whether the caller has gone.
    static let slice: Duration = .milliseconds(50)

    private let userAgent: String?
    private let limit: Duration
    private let trust: TLSTrust

    /// `userAgent` is sent unless the request names its own; https:// certificates are checked against `trust`.
    public init(userAgent: String? = nil, limit: Duration = defaultLimit, trust: TLSTrust = .system) {
        self.userAgent = userAgent
        self.limit = limit
        self.trust = trust
    }

    public func send(_ request: URLRequest, bodyLimit: Int) async throws -> (Data, HTTPURLResponse) {
        let deadline = ContinuousClock.now + limit
        return try await Redirects.follow(request) { hop in
            let (data, response) = try await exchange(hop, bodyLimit: bodyLimit, deadline: deadline)
            let target = response.url.flatMap { url in
                Redirects.target(of: response.statusCode, location: response.value(forHTTPHeaderField: "Location"), from: url)
            }
            return (data, response, target)
        }
    }

    /// One request and its answer, on a thread of its own; the caller is answered at once when its task is cancelled.
    private func exchange(_ request: URLRequest, bodyLimit: Int, deadline: ContinuousClock.Instant) async throws -> (Data, HTTPURLResponse) {
        let plan = try Plan(request, userAgent: userAgent, trust: trust)
        let outcome = FirstOutcome()
        let limit = limit
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard outcome.start(continuation) else { return }
                Thread.detachNewThread {
                    outcome.finish(Result {
                        try plan.run(bodyLimit: bodyLimit, deadline: deadline, limit: limit, abandoned: { outcome.isKnown })
                    })
                }
            }
        } onCancel: {
            outcome.finish(.failure(CancellationError()))
        }
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

    init(_ request: URLRequest, userAgent: String?, trust: TLSTrust) throws(TokenClientError) {
        let scheme = request.url?.scheme?.lowercased()
        guard let url = request.url, scheme == "http" || scheme == "https", var host = url.host, !host.isEmpty else {
            throw .unsendable("\(request.url?.absoluteString.urlWithoutCredentials.escapedForPrinting ?? "no URL") is not an http:// or https:// URL with a host")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let defaultPort = scheme == "https" ? 443 : 80
        let port = url.port ?? defaultPort
        guard let port = UInt16(exactly: port), port > 0 else { throw .unsendable("the port \(port) is not 1 to 65535") }
        let method = request.httpMethod ?? "GET"
        guard !method.isEmpty, method.utf8.allSatisfy(HTTPResponseReader.isTokenByte) else {
            throw .unsendable("the method \(method.escapedForPrinting) is not an HTTP method")
        }
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        let path = components?.percentEncodedPath ?? ""
        let target = (path.isEmpty ? "/" : path) + (components?.percentEncodedQuery.map { "?\($0)" } ?? "")
        let shownHost = host.contains(":") ? "[\(host)]" : host
        var lines = ["\(method) \(target) HTTP/1.1", "Host: \(shownHost)" + (port == defaultPort ? "" : ":\(port)"), "Connection: close"]
        let fields = (request.allHTTPHeaderFields ?? [:]).filter { !Self.framing.contains($0.key.lowercased()) }
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            guard !name.isEmpty, name.utf8.allSatisfy(HTTPResponseReader.isTokenByte),
                  !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw .unsendable("the header \(name.escapedForPrinting) cannot be sent: its name is not a token, or its value holds a line break")
            }
            lines.append("\(name): \(value)")
        }
        if let userAgent, !fields.keys.contains(where: { $0.lowercased() == "user-agent" }) { lines.append("User-Agent: \(userAgent)") }
        let body = request.httpBody ?? Data()
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { lines.append("Content-Length: \(body.count)") }
        self.url = url
        self.host = host
        self.port = port
        self.method = method
        self.trust = scheme == "https" ? trust : nil
        bytes = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + body
    }

    /// Connects, sends and reads the answer, all before `deadline`; gives up (`CancellationError`) once `abandoned`.
    func run(bodyLimit: Int, deadline: ContinuousClock.Instant, limit: Duration,
             abandoned: () -> Bool) throws -> (Data, HTTPURLResponse) {
        /// Milliseconds of the next wait: a slice, or what is left before the deadline.
        func nextWait() throws -> Int32 {
            if abandoned() { throw CancellationError() }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw TokenClientError.timeout(limit) }
            return Int32(clamping: min(left, SocketHTTPTransport.slice).wholeMilliseconds + 1)
        }
        guard deadline > ContinuousClock.now else { throw TokenClientError.timeout(limit) }
        let context = try trust.map { trust in try Self.tls { try TLSContext.shared(trust) } }
        let socket: Socket
        do {
            socket = try Socket.connect(host: host, port: port, until: deadline, abandoned: abandoned, slice: SocketHTTPTransport.slice)
        } catch {
            if error == .abandoned { throw CancellationError() }
            throw TokenClientError.transport(Self.words(error))
        }
        defer { socket.close() }

        func sendAll(_ bytes: [UInt8]) throws {
            var sent = 0
            while sent < bytes.count {
                switch socket.sendSome(bytes, from: sent) {
                case .sent(let count): sent += count
                case .full: _ = socket.waitWritable(milliseconds: try nextWait())
                case .failed: throw TokenClientError.transport("the server closed the connection while the request was being sent")
                }
            }
        }

        var arrived: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: Socket.receiveSize)
        let tls = try context.map { context in try Self.secured(socket, context: context, host: host, arrived: &arrived, scratch: &scratch,
                                                              send: sendAll, wait: nextWait) }
        if let tls {
            try Self.tls { try tls.write(bytes) }
            try sendAll(tls.takeOutgoing())
        } else {
            try sendAll(bytes)
        }

        var reader = HTTPResponseReader(bodyLimit: bodyLimit, method: method)
        var plaintext: [UInt8] = []
        while true {
            guard socket.waitReadable(milliseconds: try nextWait()) else { continue }
            arrived.removeAll(keepingCapacity: true)
            let received = socket.receive(appendingTo: &arrived, scratch: &scratch)
            var ended = received == .closed
            if let tls {
                if received == .closed { tls.receivedEnd() } else { tls.received(arrived[...]) }
                plaintext.removeAll(keepingCapacity: true)
                ended = try Self.tls { try tls.read(into: &plaintext) }
                swap(&arrived, &plaintext)
            }
            var answer = arrived.isEmpty ? nil : try reader.read(arrived[...])
            if answer == nil, ended { answer = try reader.closed() }
            guard let answer else { continue }
            var fields: [String: String] = [:]
            for field in answer.head.fields where !fields.keys.contains(where: { $0.lowercased() == field.name.lowercased() }) {
                fields[field.name] = answer.head.value(field.name)
            }
            guard let response = HTTPURLResponse(url: url, statusCode: answer.head.status, httpVersion: "HTTP/1.1", headerFields: fields) else {
                throw TokenClientError.invalidResponse("HTTP status \(answer.head.status)")
            }
            return (Data(answer.body), response)
        }
    }

    /// A TLS session on `socket` whose handshake is done, run by the exchange's waits (so under its deadline).
    private static func secured(_ socket: Socket, context: TLSContext, host: String, arrived: inout [UInt8], scratch: inout [UInt8],
                                send: ([UInt8]) throws -> Void, wait: () throws -> Int32) throws -> TLSSession {
        let session = try tls { try TLSSession(context: context, host: host) }
        while try !tls({ try session.handshake() }) {
            try send(session.takeOutgoing())
            guard socket.waitReadable(milliseconds: try wait()) else { continue }
            arrived.removeAll(keepingCapacity: true)
            switch socket.receive(appendingTo: &arrived, scratch: &scratch) {
            case .received: session.received(arrived[...])
            case .nothingYet: break
            case .closed: session.receivedEnd()
            }
        }
        try send(session.takeOutgoing())
        return session
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
