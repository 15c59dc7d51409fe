import Foundation
import HTTP1

/// Sends one HTTP request: the network's seam, replaced by stubs in tests. The request's target is an absolute URL
/// (`https://host/path?query`); the transport sends it in origin-form with its `Host`.
public protocol HTTPTransport: Sendable {
    /// The final answer and the URL it came from (the request's own, or where the redirects it followed led); refused
    /// (`answerTooLong`) as soon as it is known to pass `bodyLimit` bytes. Throws `CancellationError` at once when the
    /// calling task is cancelled.
    func send(_ request: HTTPRequest, bodyLimit: Int) async throws -> (reply: HTTPReply, url: URL)
}

extension HTTPRequest {
    /// A request for `url`: its absolute form is the target.
    public init(method: String = "GET", url: URL, fields: HTTPFields = [], body: [UInt8] = []) {
        self.init(method: method, target: url.absoluteString, fields: fields, body: body)
    }

    /// The target as a URL, when it is one (a client's request).
    public var url: URL? { URL(string: target) }
}

extension ResponseFailure {
    /// The failure as the token client's error.
    var clientError: TokenClientError {
        switch self {
        case .malformed: .invalidResponse(description)
        case .tooLong(let bytes, let limit): .answerTooLong(bytes: bytes, limit: limit)
        case .cut(let words): .transport(words)
        }
    }
}
