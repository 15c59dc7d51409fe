import Foundation
import HTTP1
import PrintableText

/// The redirect rules every transport follows: only to the request's own origin, so its credential is never sent
/// elsewhere, `limit` times at most, the request repeated as the status says.
enum Redirects {
    /// Same-origin redirects followed before the request is refused as a loop.
    static let limit = 3

    /// Sends `request` through `exchange` (one request, no redirect followed: the answer, and where it redirects to
    /// if it does), following redirects by these rules.
    static func follow(_ request: HTTPRequest,
                       through exchange: (HTTPRequest) async throws -> (HTTPReply, URL, URL?)) async throws -> (reply: HTTPReply, url: URL) {
        let origin = Origin(request.url)
        var hop = request
        for _ in 0...limit {
            let (reply, url, target) = try await exchange(hop)
            guard let target else { return (reply, url) }
            guard Origin(target) == origin else {
                // The credential is named only when one goes with the request.
                let credential = request.header("Authorization") == nil ? "" : ", and the --auth-bearer credential,"
                throw TokenClientError.redirected("HTTP \(reply.status) to another origin, \(Origin(target).description.escapedForPrinting); "
                    + "tokencall sends requests\(credential) only to the token server's own origin")
            }
            hop = Self.request(following: hop, to: target, status: reply.status)
        }
        throw TokenClientError.redirected("more than \(limit) redirects (a redirect loop?)")
    }

    /// Where an answer to a request for `url` redirects to: a 301, 302, 303, 307 or 308 with a Location that is a URL.
    static func target(of status: Int, location: String?, from url: URL) -> URL? {
        guard [301, 302, 303, 307, 308].contains(status), let location, !location.isEmpty else { return nil }
        return URL(string: location, relativeTo: url)?.absoluteURL
    }

    /// The request a redirect asks for: 307 and 308 repeat it; the others make a POST a GET without a body (RFC 9110).
    private static func request(following request: HTTPRequest, to target: URL, status: Int) -> HTTPRequest {
        var next = request
        next.target = target.absoluteString
        if status == 303 || (status != 307 && status != 308 && request.method == "POST") {
            next.method = "GET"
            next.body = []
            next.fields.set("Content-Type", nil)
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
