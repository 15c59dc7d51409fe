import Foundation
import Glibc
import Synchronization
import WebSocket

/// A token server that misbehaves on purpose: a raw socket on 127.0.0.1 that reads each request and answers
/// it with the test's script, one request per connection, recording what it was sent and whether the client
/// hung up.
public final class HostileServer: Sendable {
    /// One accepted connection, as the script sees it.
    public struct Connection: Sendable {
        /// 0 for the first request the server received, 1 for the next...
        public let index: Int
        /// The request's head and body as sent.
        public let request: String
        fileprivate let fd: Int32
        fileprivate let server: HostileServer

        /// Writes all of `text`; false once the client has closed the connection.
        @discardableResult
        public func write(_ text: String) -> Bool { write(Array(text.utf8)) }

        @discardableResult
        public func write(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard sent > 0 else {
                    server.state.withLock { $0.clientClosed = true }
                    return false
                }
                offset += sent
                server.state.withLock { $0.bytesSent += sent }
            }
            return true
        }

        /// Makes the close that ends the script a reset (RST), as when a server crashes, instead of a clean end
        /// (FIN). A clean end inside the head makes FoundationNetworking end the process (see `Docs/usage.md`).
        public func reset() {
            var hard = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, socklen_t(MemoryLayout<linger>.size))
        }

        /// Waits, sending nothing, until the client closes the connection (true) or `limit` passes (false).
        @discardableResult
        public func waitForClose(upTo limit: Duration) -> Bool { read(upTo: limit).closed }

        /// Reads what the client sends, sending nothing, until `enough` is true of all read so far, the client
        /// closes the connection, or `limit` passes.
        public func read(upTo limit: Duration, until enough: ([UInt8]) -> Bool = { _ in false }) -> (bytes: [UInt8], closed: Bool) {
            let end = ContinuousClock.now + limit
            var scratch = [UInt8](repeating: 0, count: 4096)
            var bytes: [UInt8] = []
            while ContinuousClock.now < end, !enough(bytes) {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 20) > 0 else { continue }
                let count = recv(fd, &scratch, scratch.count, 0)
                guard count > 0 else {
                    server.state.withLock { $0.clientClosed = true }
                    return (bytes, true)
                }
                bytes += scratch[..<count]
            }
            return (bytes, false)
        }
    }

    fileprivate struct State {
        var requests: [String] = []
        var bytesSent = 0
        var clientClosed = false
    }

    public let port: UInt16
    fileprivate let state = Mutex(State())
    private let connections: ThreadPerConnection

    /// Listens on a free port of 127.0.0.1 and runs `script` on a thread of its own for each request. The test stops
    /// it (`defer { server.stop() }`) before it ends.
    public init(_ script: @escaping @Sendable (Connection) -> Void) throws {
        guard let (listener, port) = Loopback.listen(backlog: 128) else { throw POSIXError(.EADDRNOTAVAIL) }
        self.port = port
        connections = ThreadPerConnection(listener: listener)
        connections.start { [self] fd in
            var small: Int32 = 4096
            setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            let request = Self.readRequest(fd)
            let index = state.withLock { state in
                state.requests.append(request)
                return state.requests.count - 1
            }
            script(Connection(index: index, request: request, fd: fd, server: self))
        }
    }

    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// Every request received, head and body.
    public var requests: [String] { state.withLock { $0.requests } }
    /// Bytes of answers the client took.
    public var bytesSent: Int { state.withLock { $0.bytesSent } }
    /// Whether the client closed a connection while the server was still answering.
    public var clientClosed: Bool { state.withLock { $0.clientClosed } }

    /// Stops accepting, shuts the connections whose scripts still run and waits for every thread of the server to
    /// end (`ThreadPerConnection.stop`).
    public func stop() { connections.stop() }

    /// The head and, as its Content-Length says, the body; whatever came within two seconds.
    private static func readRequest(_ fd: Int32) -> String {
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var bytes: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            if let request = Loopback.wholeRequest(bytes) { return request }
            let received = recv(fd, &scratch, scratch.count, 0)
            guard received > 0 else { return String(decoding: bytes, as: UTF8.self) }
            bytes += scratch[..<received]
        }
    }
}

/// An HTTP/1.1 head that closes the connection after the answer, so each request comes on a new one.
public func head(_ status: String, _ headers: [String] = []) -> String {
    (["HTTP/1.1 \(status)", "Connection: close"] + headers).joined(separator: "\r\n") + "\r\n\r\n"
}

extension HostileServer.Connection {
    /// Answers the request as a hub opening a WebSocket does: 101 with the accept key of the request's
    /// `Sec-WebSocket-Key`. False once the client has closed the connection.
    @discardableResult
    public func acceptWebSocket() -> Bool {
        let key = request.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
        return write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     + "Sec-WebSocket-Accept: \(WebSocketHandshake.acceptValue(forKey: key))\r\n\r\n")
    }
}
