import HTTP1
import Sockets
import WebSocket

/// One WebSocket connection on a host, for as long as the host runs.
public struct WebSocketClientID: Hashable, Sendable, CustomStringConvertible {
    let value: UInt64
    public init(_ value: UInt64) { self.value = value }
    public var description: String { "#\(value)" }
}

/// How a connection ended, as the service hears it.
public enum WebSocketEnd: Equatable, Sendable {
    /// The client sent a close frame.
    case closedByClient(WebSocketCloseCode)
    /// The connection broke.
    case lost
    /// Nothing arrived from it for this long, the host's silence limit.
    case silent(Duration)
    /// The host closed it: the service asked, the client broke the protocol, or it did not read what it was sent.
    case closedByHost(WebSocketCloseCode)
}

/// What a service does to its clients. Called only on the host's thread: from within the service's callbacks, or from
/// what the service runs on `loop`.
public protocol WebSocketOutlet: AnyObject {
    /// The host's loop, for the service's own sockets (its handlers run between the host's events, and what they queue
    /// is flushed at the end of the turn); nil without one (tests).
    var loop: EventLoop? { get }
    /// Queues a text message for each client; a client whose queue is full is dropped as too slow.
    func send(text: String, to clients: some Sequence<WebSocketClientID>)
    /// Queues a binary message for each client, framed once.
    func send(binary: [UInt8], to clients: some Sequence<WebSocketClientID>)
    /// Sends a close frame and ends the connection; the service hears `closed` with `.closedByHost(code)`.
    func close(_ client: WebSocketClientID, code: WebSocketCloseCode, reason: String)
    /// Writes a line to the server's log.
    func log(_ line: String)
    /// Whether the client has shown it is one (a hub's in a channel). Until it has, its place is the first the server
    /// gives to a newcomer when it is full: it is closed with 1008.
    func prove(_ client: WebSocketClientID, _ proven: Bool)
}

/// What runs behind a WebSocket endpoint. It lives on its host's loop: the host calls it from its one thread, never two
/// calls at once, so a service keeps its state without locks, and nothing else reaches it.
public protocol WebSocketService: AnyObject {
    /// The host is stopping: the service's last word before every connection is closed with 1001, which waits for
    /// `done` (on the loop, once, as the last thing the service does; the host reads nothing from its clients meanwhile
    /// and gives up waiting after `WebSocketHost.stopLimit`).
    func stopping(then done: @escaping () -> Void)
    /// The host starts; `wake` makes it call `tick` soon, from any thread.
    func start(outlet: any WebSocketOutlet, wake: @escaping @Sendable () -> Void)
    /// A client connected from `address`, with the query of the URL it asked for.
    func opened(_ client: WebSocketClientID, address: String, query: [String: String])
    func received(_ message: WebSocketMessage, from client: WebSocketClientID)
    /// The client is gone; nothing more is sent to it.
    func closed(_ client: WebSocketClientID, _ end: WebSocketEnd)
    /// Does what is due now; returns how long until it next has something to do, nil for nothing planned.
    func tick() -> Duration?
}

public extension WebSocketService {
    func stopping(then done: @escaping () -> Void) { done() }
}

/// A whole data message.
public enum WebSocketMessage: Equatable, Sendable {
    case text(String)
    case binary([UInt8])
}

/// A WebSocket service at one path of the server.
public struct WebSocketEndpoint: Sendable {
    /// The request path that upgrades, such as `/hub`.
    public var path: String
    public var limits: WebSocketLimits
    /// Whether a request for the endpoint may become a connection: nil to let it, or why not (answered 400). Called
    /// on the HTTP loops, not the host's: it reads the request alone.
    public var admission: @Sendable (HTTPRequest) -> String?
    /// Makes the service, on the host's loop, where it lives from then on.
    public var service: @Sendable () -> any WebSocketService

    public init(path: String, limits: WebSocketLimits, admission: @escaping @Sendable (HTTPRequest) -> String? = { _ in nil },
                service: @escaping @Sendable () -> any WebSocketService) {
        self.path = path
        self.limits = limits
        self.admission = admission
        self.service = service
    }
}
