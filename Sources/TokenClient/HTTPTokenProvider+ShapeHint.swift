import Foundation
import HTTP1

extension HTTPTokenProvider {
    /// Where the server's own paths (`/ping`, the named shapes') start: the URL, or for a shape whose URL may be its
    /// endpoint, the URL without that endpoint.
    public var serverRoot: URL {
        var base = url
        if shape.urlMayBeEndpoint, !(base.path.isEmpty || base.path == "/") { base.deleteLastPathComponent() }
        return base
    }

    /// `GET /ping` under `serverRoot`, with the Origin the provider sends.
    public var pingRequest: HTTPRequest {
        var request = HTTPRequest(url: serverRoot.appendingPathComponent("ping"), fields: [("Accept", "application/json")])
        if let origin { request.fields.append("Origin", origin) }
        return request
    }

    /// What to do about a 404 to the token request, when `GET /ping` shows the server runs but not at that path: the
    /// named shapes whose request for `request` gets a token there, or that none does; nil when `/ping` does not
    /// answer (the URL may be wrong altogether). `send` is one exchange, nil when it got no answer.
    public func shapeHint(for request: TokenRequest, send: (HTTPRequest) async -> HTTPReply?) async -> String? {
        guard let ping: HTTPReply = await send(pingRequest), (200..<300).contains(ping.status), !Self.isWebPage(ping) else { return nil }
        let root = serverRoot
        let atRoot = root.path.isEmpty || root.path == "/"
        var answering: [String] = []
        // A shape whose URL may be its endpoint takes a URL with a path as that endpoint: it is tried at the root only.
        for (other, _) in Shape.named where other.description != shape.description && (atRoot || !other.urlMayBeEndpoint) {
            let provider = HTTPTokenProvider(url: root, shape: other, requestedLifetime: requestedLifetime, bearer: bearer,
                                             origin: origin, transport: transport)
            guard let sent: HTTPRequest = try? provider.httpRequest(for: request), let reply: HTTPReply = await send(sent),
                  let _: Answer = try? provider.readAnswer(reply) else { continue }
            answering.append(other.description)
        }
        guard !answering.isEmpty else { return Self.noShapeAnswers }
        let names: String = answering.joined(separator: " or ")
        return "GET /ping answers, and --token-request \(names) gets a token there: use that"
    }

    static let noShapeAnswers = "GET /ping answers, so the server runs, but no request shape tokencall knows gets a token there: "
        + "point the URL at its token endpoint, or describe its request with a template (Docs/token-requests.md)"

    /// Why a token request got a 404: the server may run with another path, so `shapeHint` says which request shape
    /// gets a token there, as `doctor` does.
    func notFound(_ message: String?, for request: TokenRequest) async -> TokenClientError {
        let transport = transport
        let hint = await shapeHint(for: request) { sent in try? await transport.send(sent, bodyLimit: Self.bodyLimit).reply }
        guard let hint else { return .server(status: 404, message: message) }
        return .wrongPath(message: message, hint: hint)
    }

    /// An HTML page, by its type or its first character: what a catch-all route answers to any path.
    public static func isWebPage(_ reply: HTTPReply) -> Bool {
        if let type: String = reply.header("Content-Type"), type.lowercased().utf8.firstRange(of: "html".utf8) != nil { return true }
        let start: String = String(decoding: reply.body.prefix(64), as: UTF8.self)
        return start.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("<")
    }
}
