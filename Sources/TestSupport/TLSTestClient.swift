import Foundation
import Sockets
import TLS

/// A blocking TLS client over loopback for the server's tests: the handshake, then bytes both ways, each wait
/// bounded so that a failing test ends.
public final class TLSTestClient {
    public let wire: Wire
    /// The name it asks the server for, and sends as `Host`.
    private let name: String
    private var scratch = [UInt8](repeating: 0, count: Socket.receiveSize)
    private var plaintext: [UInt8] = []

    public init(port: UInt16, caFile: String, name: String = "127.0.0.1") throws {
        self.name = name
        let socket = try Socket.connect(host: "127.0.0.1", port: port, until: .now + .seconds(5))
        let session = try TLSSession(context: try TLSContext.shared(.file(caFile)), host: name)
        wire = Wire(socket, tls: session)
        try wire.start()
        let deadline = ContinuousClock.now + .seconds(10)
        while wire.isHandshaking {
            _ = wire.flush()
            guard ContinuousClock.now < deadline else { throw TLSFailure.setup("the handshake took over 10 s") }
            _ = wire.socket.waitReadable(milliseconds: 100)
            switch wire.receive(scratch: &scratch) {
            case .refused(let failure): throw failure
            case .ended: throw TLSFailure.handshakeRefused("closed")
            case .data(let bytes), .secured(let bytes): plaintext += bytes
            case .nothing: break
            }
        }
        _ = wire.flush()
    }

    deinit { wire.socket.close() }

    /// Sends a GET and reads one answer; its status and body, nil when the server closed or said nothing in 10 s.
    public func get(_ path: String, host: String? = nil, close: Bool = false) throws -> (status: Int, body: String)? {
        try wire.queue(Array("GET \(path) HTTP/1.1\r\nHost: \(host ?? name)\r\n\(close ? "Connection: close\r\n" : "")\r\n".utf8))
        while wire.queued > 0 {
            guard case .partial = wire.flush() else { break }
            _ = wire.socket.waitWritable(milliseconds: 100)
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let end = plaintext.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: plaintext[..<end.lowerBound], as: UTF8.self)
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if plaintext.count >= end.upperBound + length {
                    let status = Int(head.split(separator: " ")[1]) ?? 0
                    let body = String(decoding: plaintext[end.upperBound..<(end.upperBound + length)], as: UTF8.self)
                    plaintext.removeFirst(end.upperBound + length)
                    return (status, body)
                }
            }
            _ = wire.socket.waitReadable(milliseconds: 100)
            switch wire.receive(scratch: &scratch) {
            case .data(let bytes), .secured(let bytes): plaintext += bytes
            case .ended(let bytes):
                plaintext += bytes
                if plaintext.isEmpty { return nil }
            case .refused: return nil
            case .nothing: break
            }
        }
        return nil
    }
}
