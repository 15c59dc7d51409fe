import AccessToken
import Foundation
import HTTP1
import PrintableText
import TLS
import WebServer
import Timers

/// A token server: Agora's guide's `POST /fetch_rtc_token`, agora-token-service's `POST /getToken` and
/// `GET /rtc/...`, and `GET /ping`, issuing AccessToken2.
public final class TokenServer: Sendable {
    public let config: TokenServerConfig
    /// The port it listens on (the one picked when the config asked for 0).
    public let port: UInt16
    private let http: HTTPServer
    private let webSocketHost: WebSocketHost.Handle?

    /// Starts listening at once; throws when the port is taken or the credentials are malformed.
    public init(_ config: TokenServerConfig) throws {
        guard AgoraID.isValid(config.appID) else { throw TokenError.invalidAppID(length: config.appID.utf8.count) }
        guard AgoraID.isValid(config.appCertificate) else {
            throw TokenError.invalidAppCertificate(length: config.appCertificate.utf8.count)
        }
        self.config = config
        let routes = TokenRoutes(config: config)
        var limits = HTTPServer.Limits()
        limits.maxConnections = config.maxConnections
        limits.maxConnectionsPerAddress = config.maxConnectionsPerAddress
        limits.requestDeadline = config.requestDeadline
        limits.idleTimeout = config.idleTimeout
        let log = config.log.map { write in
            { @Sendable (request: HTTPRequest?, response: HTTPResponse, elapsed: Duration) in
                let micros = elapsed.wholeMicroseconds
                write("\(HTTPServer.printable(request?.method ?? "-")) \(HTTPServer.printable(request?.path ?? "-")) \(response.status) \(micros)µs")
            }
        }
        let logRefusal = config.log.map { write in
            { @Sendable (address: String, failure: TLSFailure) in write("\(address) \(failure.description.escapedForPrinting)") }
        }
        var handler: HTTPServer.Handler = routes.handle
        var host: WebSocketHost.Handle?
        if let endpoint = config.webSocket {
            let webSocket = try WebSocketHost.Handle(endpoint, log: config.log)
            handler = { request in
                guard request.path == webSocket.path else { return routes.handle(request) }
                return routes.refusal(ofWebSocketFrom: request) ?? webSocket.upgrade(request)
            }
            host = webSocket
        }
        webSocketHost = host
        do {
            http = try HTTPServer(host: config.host, port: config.port, limits: limits, tls: config.tls, log: log,
                                  logRefusal: logRefusal, handler: handler)
        } catch {
            host?.stop()
            throw error
        }
        port = http.port
    }

    /// Connections served at once: `config.maxConnections`, or less when the open-file limit has no room for them.
    public var maxConnections: Int { http.maxConnections }
    /// The process's soft limit on open files, raised at start as far as the hard limit allows when connections need it.
    public var openFileLimit: Int { http.openFileLimit }

    /// The base URL a client on this machine uses, e.g. `http://127.0.0.1:8082` (loopback when listening on every
    /// interface).
    public var url: URL {
        URL(string: Self.url(host: Self.wildcardLoopback[http.host] ?? http.host, port: port, tls: config.tls != nil))!
    }

    /// Where it listens, for people: the URL, and for a wildcard address what that means and the URL to use here,
    /// e.g. `http://0.0.0.0:8082 (every IPv4 interface; on this machine http://127.0.0.1:8082)`.
    public var listening: String { Self.listening(host: http.host, port: port, tls: config.tls != nil) }

    static func listening(host: String, port: UInt16, tls: Bool = false) -> String {
        let address = url(host: host, port: port, tls: tls)
        guard let loopback = wildcardLoopback[host] else { return address }
        let interfaces = host == "::" ? "every interface" : "every IPv4 interface"
        return "\(address) (\(interfaces); on this machine \(url(host: loopback, port: port, tls: tls)))"
    }

    /// The loopback address that reaches a server listening on a wildcard address.
    private static let wildcardLoopback = ["0.0.0.0": "127.0.0.1", "::": "::1"]

    private static func url(host: String, port: UInt16, tls: Bool) -> String {
        "\(tls ? "https" : "http")://\(host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host):\(port)"
    }

    /// Closes the WebSocket connections (1001), stops accepting and finishes requests under way (up to 2 s).
    public func stop() {
        webSocketHost?.stop()
        http.stop()
    }
}
