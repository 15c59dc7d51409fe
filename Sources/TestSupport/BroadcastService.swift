import WebServer

/// A service that greets each client, sends every message back to every client, floods on request, closes a client
/// from its tick on request, and says when a client has gone.
public final class BroadcastService: WebSocketService {
    public init() {}

    private var outlet: (any WebSocketOutlet)?
    private var wake: @Sendable () -> Void = {}
    private var clients: [WebSocketClientID] = []
    /// Clients to close at the next tick, as a hub closes those whose deadline came.
    private var closingAtTick: [WebSocketClientID] = []

    public func start(outlet: any WebSocketOutlet, wake: @escaping @Sendable () -> Void) { (self.outlet, self.wake) = (outlet, wake) }

    public func opened(_ client: WebSocketClientID, address: String, query: [String: String]) {
        clients.append(client)
        outlet?.send(text: "hello \(client)", to: [client])
    }

    public func received(_ message: WebSocketMessage, from client: WebSocketClientID) {
        switch message {
        case .text(let text) where text.hasPrefix("flood "):
            let payload = [UInt8](repeating: 7, count: 32 * 1024)
            for _ in 0..<(Int(text.dropFirst(6)) ?? 0) { outlet?.send(binary: payload, to: clients) }
            outlet?.send(text: "flooded", to: clients)
        case .text("refuse"):
            outlet?.close(client, code: .policyViolation, reason: "asked to be refused")
        case .text("close at tick"):
            closingAtTick.append(client)
            wake()
        case .text("prove"):
            outlet?.prove(client, true)
            outlet?.send(text: "proven", to: [client])
        case .text(let text):
            outlet?.send(text: text, to: clients)
        case .binary(let bytes):
            outlet?.send(binary: bytes, to: clients)
        }
    }

    public func closed(_ client: WebSocketClientID, _ end: WebSocketEnd) {
        clients.removeAll { $0 == client }
        outlet?.send(text: "closed \(client) \(end)", to: clients)
    }

    public func tick() -> Duration? {
        for client in closingAtTick { outlet?.close(client, code: .goingAway, reason: "closed at the tick") }
        closingAtTick = []
        return nil
    }
}
