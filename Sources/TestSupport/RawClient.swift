import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A client that speaks raw bytes over loopback, so tests can send what no HTTP library would.
/// One thread may send while another reads.
public final class RawClient: Sendable {
    public struct Response {
        public let status: Int
        public let headers: [String: String]
        public let body: String
        public var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] }
    }

    public let fd: Int32
    /// What arrived and was not read yet.
    private let buffer = Mutex<[UInt8]>([])

    /// Connects to 127.0.0.1:`port` from `source`, another loopback address (127.0.0.2…) when a test needs a second client
    /// machine.
    public init(port: UInt16, from source: String? = nil) throws {
        guard let fd = Loopback.connect(port: port, from: source) else { throw POSIXError(.ECONNREFUSED) }
        self.fd = fd
    }

    deinit { close(fd) }

    public func send(_ text: String) { send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Sends a request with a body and Content-Length.
    public func request(_ method: String, _ path: String, body: String? = nil, headers: [String: String] = [:]) -> Response? {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n\r\n\(body)" } else { text += "\r\n" }
        send(text)
        return readResponse()
    }

    /// Reads one response; nil when the server closed or said nothing within the timeout. The answer to a HEAD has no
    /// body whatever its Content-Length says (`bodyless`).
    public func readResponse(bodyless: Bool = false) -> Response? {
        buffer.withLock { buffer in
            while true {
                if let end = Self.find("\r\n\r\n", in: buffer) {
                    let head = String(decoding: buffer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
                    let status = Int(head[0].split(separator: " ")[1]) ?? 0
                    var headers: [String: String] = [:]
                    for line in head.dropFirst() {
                        let parts = line.split(separator: ":", maxSplits: 1)
                        headers[parts[0].lowercased()] = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
                    }
                    let length = bodyless ? 0 : Int(headers["content-length"] ?? "0") ?? 0
                    while buffer.count < end + 4 + length { guard fill(&buffer) else { return nil } }
                    let body = String(decoding: buffer[(end + 4)..<(end + 4 + length)], as: UTF8.self)
                    buffer.removeFirst(end + 4 + length)
                    return Response(status: status, headers: headers, body: body)
                }
                guard fill(&buffer) else { return nil }
            }
        }
    }

    public func isClosedByServer() -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }

    private func fill(_ buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer += chunk[..<count]
        return true
    }

    private static func find(_ needle: String, in buffer: [UInt8]) -> Int? {
        let needle = Array(needle.utf8)
        guard buffer.count >= needle.count else { return nil }
        return (0...(buffer.count - needle.count)).first { buffer[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
