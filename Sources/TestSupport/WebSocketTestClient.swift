import Foundation
import Synchronization
import WebSocket
#if canImport(Glibc)
import Glibc
#endif

/// A WebSocket client over loopback for tests: blocking, with a 10 s deadline on every read (a failing test ends,
/// it does not hang), masking what it sends as a client must, and able to send any bytes at all. One thread may send
/// while another reads.
public final class WebSocketTestClient: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private let fd: Int32
    /// What has arrived and is not read yet: the reading thread's, behind a lock a sending thread never takes.
    private let incoming = Mutex(Incoming())

    private struct Incoming {
        var reader = WebSocketReader(role: .client, maxMessageBytes: 1 << 20)
        var buffer: [UInt8] = []

        /// Waits for more bytes; false once the connection has ended (or after 10 s of nothing).
        mutating func receive(_ fd: Int32) -> Bool {
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            buffer += chunk[..<count]
            return true
        }
    }

    /// Connects to 127.0.0.1:`port` (from `source`, another loopback address, when given); `receiveBuffer` shrinks the
    /// socket's receive buffer (a slow reader).
    public init(port: UInt16, from source: String? = nil, receiveBuffer: Int32? = nil) throws {
        guard let fd = Loopback.connect(port: port, from: source, receiveBuffer: receiveBuffer) else {
            throw Failure(description: "cannot connect to 127.0.0.1:\(port)")
        }
        self.fd = fd
    }

    /// Connects and completes the handshake on `path`, checking the server's accept key.
    public static func open(port: UInt16, path: String = "/hub", from source: String? = nil) throws -> WebSocketTestClient {
        let client = try WebSocketTestClient(port: port, from: source)
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let head = try client.handshake("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                        + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n")
        // Header names in any case: a proxy in front (HAProxy) may write them in lower case.
        let accept = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-accept:") }
            .map { $0.dropFirst("sec-websocket-accept:".count).trimmingCharacters(in: .whitespaces) }
        guard head.hasPrefix("HTTP/1.1 101 "), accept == WebSocketHandshake.acceptValue(forKey: key) else {
            throw Failure(description: "the handshake was answered with \(head)")
        }
        return client
    }

    deinit { close(fd) }

    /// Sends `request` and returns the answer's head and its body (of its Content-Length).
    public func handshake(_ request: String) throws -> String {
        send(raw: Array(request.utf8))
        return try incoming.withLock { (incoming) throws(Failure) -> String in
            while true {
                if let end = incoming.buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
                    var answer = String(decoding: incoming.buffer[..<end.upperBound], as: UTF8.self)
                    incoming.buffer.removeFirst(end.upperBound)
                    let length = answer.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                    while incoming.buffer.count < length, incoming.receive(fd) {}
                    answer += String(decoding: incoming.buffer.prefix(length), as: UTF8.self)
                    incoming.buffer.removeFirst(min(length, incoming.buffer.count))
                    return answer
                }
                guard incoming.receive(fd) else { throw Failure(description: "no answer to the handshake") }
            }
        }
    }

    public func send(text: String) { send(raw: WebSocketFrame.encode(.text, Array(text.utf8), mask: Self.mask)) }
    public func send(binary: [UInt8]) { send(raw: WebSocketFrame.encode(.binary, binary, mask: Self.mask)) }
    public func sendClose(_ code: WebSocketCloseCode = .normal) { send(raw: WebSocketFrame.close(code, reason: "", mask: Self.mask)) }

    /// Sends these bytes as they are.
    public func send(raw bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// The next event from the server, nil once the connection has ended (or after 10 s of nothing).
    public func next() throws -> WebSocketEvent? {
        try incoming.withLock { incoming in
            while true {
                if !incoming.buffer.isEmpty {
                    incoming.reader.append(incoming.buffer)
                    incoming.buffer = []
                }
                if let event = try incoming.reader.next() { return event }
                guard incoming.receive(fd) else { return nil }
            }
        }
    }

    /// The next text message, skipping pings and pongs; nil when the connection ends first.
    public func nextText() throws -> String? {
        while let event = try next() {
            switch event {
            case .text(let text): return text
            case .close: return nil
            default: continue
            }
        }
        return nil
    }

    /// Reads until the server's close frame; its code and reason, nil when the connection ended without one.
    public func closeFrame() throws -> (code: WebSocketCloseCode, reason: String)? {
        while let event = try next() {
            if case .close(let code, let reason) = event { return (code, reason) }
        }
        return nil
    }

    private static let mask: (UInt8, UInt8, UInt8, UInt8) = (0x5A, 0xC3, 0x17, 0x88)
}
