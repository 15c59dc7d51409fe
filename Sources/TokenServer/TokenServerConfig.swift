import TLS
/// How `tokencall serve` (or an embedded server) runs.
public struct TokenServerConfig: Sendable {
    public var host: String
    /// 0 picks a free port.
    public var port: UInt16
    public var appID: String
    public var appCertificate: String
    /// Lifetime of issued tokens when a request names none, 1...86400 s.
    public var tokenLifetime: UInt32
    /// When set, token requests need `Authorization: Bearer <this>`.
    public var requiredBearer: String?
    /// Origins allowed by CORS (`*` for any); empty turns CORS off.
    public var corsOrigins: [String]
    /// Names it answers to besides `localhost`, `host`, any IP address and its certificate's names (a name in front
    /// of it, as `--allowed-host` and `--advertise` give); a request whose `Host` names another gets 421.
    public var allowedHosts: [String] = []
    /// Connections served at once (lowered at start when the open-file limit has no room for them); a newcomer then takes
    /// the place of an unproven one, or gets 503 when every one is proven (`Docs/token-server.md`).
    public var maxConnections: Int
    /// Connections one client address may hold; more get 503.
    public var maxConnectionsPerAddress: Int = 64
    /// A request must arrive whole within this long of its first byte, or it gets 408.
    public var requestDeadline: Duration = .seconds(10)
    /// A kept-alive connection idle this long is closed.
    public var idleTimeout: Duration = .seconds(30)
    /// Called with one line per request; nil for none.
    public var log: (@Sendable (String) -> Void)?
    /// The mistakes its tokens make on purpose (`--misconfigure`), shared by restarts; nil when it never makes any.
    public var mistakes: TokenMistakes?
    /// With a server context (`TLSContext(certificateFile:keyFile:)`), it serves https and its WebSocket endpoint as
    /// wss on the same port; nil for plain http.
    public var tls: TLSContext?
    /// A WebSocket service the server also runs, at its own path (the hub at `/hub`); nil for none.
    public var webSocket: WebSocketEndpoint?
    /// Files it serves to GET and HEAD by path (the web SDK and page at `/`); empty for none.
    public var assets: [String: WebAsset] = [:]
    /// Unix time now; tokens are issued at this time.
    public var unixTime: @Sendable () -> UInt32

    public static let lifetimeRange: ClosedRange<UInt32> = 1...86_400

    public init(host: String = "127.0.0.1", port: UInt16 = 8082, appID: String, appCertificate: String,
                tokenLifetime: UInt32 = 3600, requiredBearer: String? = nil, corsOrigins: [String] = [],
                maxConnections: Int = 256, log: (@Sendable (String) -> Void)? = nil,
                unixTime: @escaping @Sendable () -> UInt32 = { UInt32(truncatingIfNeeded: Int(Date().timeIntervalSince1970)) }) {
        self.host = host
        self.port = port
        self.appID = appID
        self.appCertificate = appCertificate
        self.tokenLifetime = tokenLifetime
        self.requiredBearer = requiredBearer
        self.corsOrigins = corsOrigins
        self.maxConnections = maxConnections
        self.log = log
        self.unixTime = unixTime
    }
}

import Foundation
import HTTP1

/// A WebSocket service at one path of the server.
public struct WebSocketEndpoint: Sendable {
    /// The request path that upgrades, such as `/hub`.
    public var path: String
    public var limits: WebSocketLimits
    /// Whether a request for the endpoint may become a connection: nil to let it, or why not (answered 400). Called
    /// on the server's threads, not the host's: it reads the request alone.
    public var admission: @Sendable (HTTPRequest) -> String?
    /// Makes the service, for its host, where it lives from then on.
    public var service: @Sendable () -> any WebSocketService

    public init(path: String, limits: WebSocketLimits, admission: @escaping @Sendable (HTTPRequest) -> String? = { _ in nil },
                service: @escaping @Sendable () -> any WebSocketService) {
        self.path = path
        self.limits = limits
        self.admission = admission
        self.service = service
    }
}

/// A file the server hands out as it is, such as a script or a page.
public struct WebAsset: Sendable {
    /// Its `Content-Type`, such as `text/javascript; charset=utf-8`.
    public var contentType: String
    public var body: [UInt8]

    public init(contentType: String, body: [UInt8]) {
        self.contentType = contentType
        self.body = body
    }
}
