import Dispatch
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
/// Each request has a session of its own, which is its delegate's whole state. The body is counted as it arrives;
/// past the limit the caller gets its error at once and the rest is dropped until URLSession acts on the cancel
/// (on Linux a loopback flood can delay that by seconds). Redirects are followed here, not by URLSession (which drops a
/// 307's body on Linux), by the rules of `Redirects`. Deadlines are the token cache's job: URLSession's own timeout
/// restarts with every byte received.
public struct URLSessionTransport: HTTPTransport {
    private let configuration: URLSessionConfiguration

    public init() {
        configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.timeoutIntervalForRequest = 60
        configuration.httpCookieStorage = nil
    }

    public func send(_ request: URLRequest, bodyLimit: Int) async throws -> (Data, HTTPURLResponse) {
        try await Redirects.follow(request) { try await transfer($0, bodyLimit: bodyLimit) }
    }

    /// One request without following redirects: the answer, and where it redirects to if it does.
    private func transfer(_ request: URLRequest, bodyLimit: Int) async throws -> (Data, HTTPURLResponse, URL?) {
        let exchange = Exchange(bodyLimit: bodyLimit)
        let session = URLSession(configuration: configuration, delegate: exchange, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        // Made before the cancel handler can invalidate the session: asking an invalidated session for a task is a
        // fatal error in FoundationNetworking ("Session invalidated"), which a cancel at the start used to reach.
        let task = session.dataTask(with: request)
        let (data, response) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if exchange.start(continuation) { task.resume() }
            }
        } onCancel: {
            exchange.fail(CancellationError(), session: session)
        }
        return (data, response, exchange.redirectTarget)
    }
}

/// One request in flight and its session's delegate: the body so far, and the caller waiting for the outcome.
private final class Exchange: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var body = Data()
        var redirectTarget: URL?
    }

    private let bodyLimit: Int
    private let state = Mutex(State())
    private let outcome = FirstOutcome()

    init(bodyLimit: Int) {
        self.bodyLimit = bodyLimit
    }

    /// Waits for the outcome; false if it is already known (the request was cancelled before it started).
    func start(_ continuation: CheckedContinuation<FirstOutcome.Answer, any Error>) -> Bool {
        outcome.start(continuation)
    }

    /// Where the answer redirects to; the transport, not URLSession, decides whether to go.
    var redirectTarget: URL? { state.withLock { $0.redirectTarget } }

    /// Answers the caller with `error` now and cancels the transfer off this thread: URLSession's cancel waits for
    /// its work queue, which a flooding server keeps busy.
    func fail(_ error: any Error, session: URLSession) {
        guard outcome.finish(.failure(error)) else { return }
        DispatchQueue.global().async { session.invalidateAndCancel() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        // FoundationNetworking ignores the disposition; failing cancels the task.
        if response.expectedContentLength > bodyLimit {
            fail(TokenClientError.answerTooLong(bytes: Int(response.expectedContentLength), limit: bodyLimit), session: session)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard !outcome.isKnown else { return }
        let within = state.withLock { state in
            state.body.append(data)
            return state.body.count <= bodyLimit
        }
        if !within { fail(TokenClientError.answerTooLong(bytes: nil, limit: bodyLimit), session: session) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        state.withLock { $0.redirectTarget = request.url }
        completionHandler(nil)
    }

    /// FoundationNetworking holds back a 401 carrying a Basic or Digest challenge until the challenge is answered (with
    /// a default answer, forever): the 401 itself is the answer, and tokencall never sends a password.
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        if let response = challenge.failureResponse as? HTTPURLResponse {
            outcome.finish(.success((state.withLock { $0.body }, response)))
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            outcome.finish(.failure(error))
        } else if let response = task.response as? HTTPURLResponse {
            outcome.finish(.success((state.withLock { $0.body }, response)))
        } else {
            outcome.finish(.failure(URLError(.badServerResponse)))
        }
    }
}
