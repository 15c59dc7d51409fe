import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// Sends one HTTP request: the network's seam, replaced by stubs in tests.
public protocol HTTPTransport: Sendable {
    /// The answer, refused (`invalidResponse`) as soon as it is known to pass `bodyLimit` bytes.
    /// Throws `CancellationError` at once when the calling task is cancelled.
    func send(_ request: URLRequest, bodyLimit: Int) async throws -> (Data, HTTPURLResponse)
}

/// URLSession without a URL cache (Linux ignores `cachePolicy`, and a cached token would be replayed).
///
/// The body is counted as it arrives and the task cancelled once it passes the limit. Redirects are followed
/// here, not by URLSession (which drops a 307's body on Linux): only on the origin of the request, so its
/// credential is never sent elsewhere, and `redirectLimit` times at most.
/// Deadlines are the token cache's job: URLSession's own timeout restarts with every byte received.
public struct URLSessionTransport: HTTPTransport {
    /// Same-origin redirects followed before the request is refused as a loop.
    public static let redirectLimit = 3

    private let session: URLSession
    private let exchanges: Exchanges

    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.timeoutIntervalForRequest = 60
        configuration.httpCookieStorage = nil
        exchanges = Exchanges()
        session = URLSession(configuration: configuration, delegate: exchanges, delegateQueue: nil)
    }

    public func send(_ request: URLRequest, bodyLimit: Int) async throws -> (Data, HTTPURLResponse) {
        let origin = Origin(request.url)
        var hop = request
        for _ in 0...Self.redirectLimit {
            let (data, response, target) = try await transfer(hop, bodyLimit: bodyLimit)
            guard let target else { return (data, response) }
            guard Origin(target) == origin else {
                throw TokenClientError.redirected("HTTP \(response.statusCode) to another origin, \(Origin(target)); tokencall sends "
                    + "requests, and the --auth-bearer credential, only to the origin of --token-url")
            }
            hop = Self.request(following: hop, to: target, status: response.statusCode)
        }
        throw TokenClientError.redirected("more than \(Self.redirectLimit) redirects (a redirect loop?)")
    }

    /// One request without following redirects: the answer, and where it redirects to if it does.
    private func transfer(_ request: URLRequest, bodyLimit: Int) async throws -> (Data, HTTPURLResponse, URL?) {
        let task = session.dataTask(with: request)
        let exchange = Exchange(bodyLimit: bodyLimit)
        exchanges.add(exchange, for: task)
        let (data, response) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                exchange.start(continuation)
                task.resume()
            }
        } onCancel: {
            exchange.finish(.failure(CancellationError()))
            task.cancel()
        }
        return (data, response, exchange.redirectTarget)
    }

    /// The request a redirect asks for: 307 and 308 repeat it; the others make a POST a GET without a body (RFC 9110).
    private static func request(following request: URLRequest, to target: URL, status: Int) -> URLRequest {
        var next = request
        next.url = target
        if status == 303 || (status != 307 && status != 308 && request.httpMethod == "POST") {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.setValue(nil, forHTTPHeaderField: "Content-Type")
        }
        return next
    }
}

/// Scheme, host and port: where a request may go with its credential.
struct Origin: Equatable, CustomStringConvertible {
    let scheme: String
    let host: String
    let port: Int?

    init(_ url: URL?) {
        scheme = url?.scheme?.lowercased() ?? ""
        host = url?.host?.lowercased() ?? ""
        port = url?.port ?? ["http": 80, "https": 443][scheme]
    }

    var description: String { "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "") }
}

/// One request in flight: the body so far, and the caller waiting for the outcome, resumed exactly once.
private final class Exchange: Sendable {
    typealias Outcome = Result<(Data, HTTPURLResponse), any Error>

    private struct State {
        var body = Data()
        var redirectTarget: URL?
        var waiting: CheckedContinuation<(Data, HTTPURLResponse), any Error>?
        var outcome: Outcome?
    }

    let bodyLimit: Int
    private let state = Mutex(State())

    init(bodyLimit: Int) {
        self.bodyLimit = bodyLimit
    }

    func start(_ continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>) {
        let outcome = state.withLock { state -> Outcome? in
            guard let outcome = state.outcome else {
                state.waiting = continuation
                return nil
            }
            return outcome
        }
        if let outcome { continuation.resume(with: outcome) }
    }

    /// The first outcome wins; later ones (URLSession completing a task already refused) are dropped.
    /// Returns whether this one was the first.
    @discardableResult
    func finish(_ outcome: Outcome) -> Bool {
        let (first, waiting) = state.withLock { state -> (Bool, CheckedContinuation<(Data, HTTPURLResponse), any Error>?) in
            guard state.outcome == nil else { return (false, nil) }
            state.outcome = outcome
            defer { state.waiting = nil }
            return (true, state.waiting)
        }
        waiting?.resume(with: outcome)
        return first
    }

    /// Adds `data` to the body of an exchange still open; false once the body passes the limit.
    func append(_ data: Data) -> Bool {
        state.withLock { state in
            guard state.outcome == nil else { return true }
            state.body.append(data)
            return state.body.count <= bodyLimit
        }
    }

    var body: Data { state.withLock { $0.body } }

    /// Where the answer redirects to; the transport, not URLSession, decides whether to go.
    var redirectTarget: URL? {
        get { state.withLock { $0.redirectTarget } }
        set { state.withLock { $0.redirectTarget = newValue } }
    }
}

/// The session's delegate: routes each task's callbacks to its exchange.
private final class Exchanges: NSObject, URLSessionDataDelegate, Sendable {
    private let byTask = Mutex<[Int: Exchange]>([:])

    func add(_ exchange: Exchange, for task: URLSessionTask) {
        byTask.withLock { $0[task.taskIdentifier] = exchange }
    }

    private func exchange(for task: URLSessionTask) -> Exchange? {
        byTask.withLock { $0[task.taskIdentifier] }
    }

    /// Fails the exchange and stops the transfer, unless the exchange had already ended.
    private func refuse(_ task: URLSessionTask, _ error: TokenClientError) {
        if exchange(for: task)?.finish(.failure(error)) == true { task.cancel() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        // FoundationNetworking ignores the disposition, so the task is cancelled as well.
        if let exchange = exchange(for: dataTask), response.expectedContentLength > exchange.bodyLimit {
            refuse(dataTask, .answerTooLong(bytes: Int(response.expectedContentLength), limit: exchange.bodyLimit))
            completionHandler(.cancel)
        } else {
            completionHandler(.allow)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let exchange = exchange(for: dataTask), !exchange.append(data) else { return }
        refuse(dataTask, .answerTooLong(bytes: nil, limit: exchange.bodyLimit))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        exchange(for: task)?.redirectTarget = request.url
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = byTask.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            exchange.finish(.failure(error))
        } else if let response = task.response as? HTTPURLResponse {
            exchange.finish(.success((exchange.body, response)))
        } else {
            exchange.finish(.failure(URLError(.badServerResponse)))
        }
    }
}
