import Foundation
import Glibc
import Synchronization

/// An HTTP/1.1 server on 127.0.0.1 that keeps its connections: each request on a connection is answered as the test's
/// script says, on the connection's own thread, and the server counts what a client's reuse of connections shows
/// (connections accepted, the most open at once, the ones the client closed).
public final class KeepAliveServer: Sendable {
    /// What the script does with one request.
    public enum Reply: Sendable {
        /// Sends these bytes and reads the connection's next request.
        case answer(String)
        /// Closes the connection without a byte of answer.
        case hangUp
    }

    /// One request, as the script sees it.
    public struct Request: Sendable {
        /// 0 for the first request the server received, 1 for the next...
        public let index: Int
        /// 0 for the first connection accepted, 1 for the next...
        public let connection: Int
        /// Its head and body as sent.
        public let text: String
    }

    private struct State {
        var accepted = 0
        var open = 0
        var mostOpen = 0
        var closedByClient = 0
        var requests: [String] = []
    }

    public let port: UInt16
    private let state = Mutex(State())
    private let connections: ThreadPerConnection

    /// Listens on a free port of 127.0.0.1; the test stops it (`defer { server.stop() }`).
    public init(_ script: @escaping @Sendable (Request) -> Reply) throws {
        guard let (listener, port) = Loopback.listen(backlog: 128) else { throw POSIXError(.EADDRNOTAVAIL) }
        self.port = port
        connections = ThreadPerConnection(listener: listener)
        connections.start { [self] fd in
            let connection = state.withLock { state in
                state.accepted += 1
                state.open += 1
                state.mostOpen = max(state.mostOpen, state.open)
                return state.accepted - 1
            }
            defer { state.withLock { $0.open -= 1 } }
            var pending: [UInt8] = []
            var scratch = [UInt8](repeating: 0, count: 4096)
            while true {
                while Self.requestLength(pending) == nil {
                    let count = recv(fd, &scratch, scratch.count, 0)
                    guard count > 0 else {
                        if pending.isEmpty { state.withLock { $0.closedByClient += 1 } }
                        return
                    }
                    pending += scratch[..<count]
                }
                let length = Self.requestLength(pending) ?? pending.count
                let text = String(decoding: pending[..<length], as: UTF8.self)
                pending.removeFirst(length)
                let index = state.withLock { state in
                    state.requests.append(text)
                    return state.requests.count - 1
                }
                switch script(Request(index: index, connection: connection, text: text)) {
                case .hangUp:
                    return
                case .answer(let answer):
                    let bytes = Array(answer.utf8)
                    guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else { return }
                }
            }
        }
    }

    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// Connections accepted so far.
    public var accepted: Int { state.withLock { $0.accepted } }
    /// The most connections open at once.
    public var mostOpen: Int { state.withLock { $0.mostOpen } }
    /// Connections the client closed between requests.
    public var closedByClient: Int { state.withLock { $0.closedByClient } }
    /// Every request received, head and body.
    public var requests: [String] { state.withLock { $0.requests } }

    public func stop() { connections.stop() }

    /// The length of the request at the start of `bytes`, head and body (as its Content-Length says), once whole.
    private static func requestLength(_ bytes: [UInt8]) -> Int? {
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let length = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        return bytes.count - end.upperBound >= length ? end.upperBound + length : nil
    }
}

/// An answer that keeps its connection: `200 OK` with `body` (JSON).
public func keptAnswer(_ body: String = "{}") -> String {
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
}
