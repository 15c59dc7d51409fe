/// What a peer sent: a whole message or a control frame.
public enum WebSocketEvent: Equatable, Sendable {
    case text(String)
    case binary([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    /// The peer is closing; `code` is `.noStatus` when its frame carried none.
    case close(WebSocketCloseCode, reason: String)
}

/// Why a connection must be closed: the code to close it with and what the peer did wrong, in words.
public struct WebSocketFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: WebSocketCloseCode
    public let reason: String

    public init(_ code: WebSocketCloseCode, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue) \(reason)" }
}

/// Reads frames off a connection's bytes as they arrive (RFC 6455 §5), strictly: no extensions, masking as the
/// peer's role requires, minimal lengths, control frames short and whole, fragments in order, text valid UTF-8.
/// A frame's length is checked against the message limit as soon as its header is in, before any payload is kept.
public struct WebSocketReader: Sendable {
    /// Which end reads: a server reads a client's frames, which must be masked; a client reads unmasked ones.
    public enum Role: Sendable { case server, client }

    public let role: Role
    /// The most a whole message (all its fragments) may hold.
    public let maxMessageBytes: Int
    private var buffer: [UInt8] = []
    private var start = 0
    /// The message being assembled from fragments, and its opcode.
    private var fragments: [UInt8] = []
    private var fragmentedOpcode: WebSocketOpcode?
    private var failed: WebSocketFailure?

    public init(role: Role, maxMessageBytes: Int = 64 * 1024) {
        self.role = role
        self.maxMessageBytes = maxMessageBytes
    }

    /// Bytes received and not yet read as frames.
    public var pendingBytes: Int { buffer.count - start }

    /// Adds bytes as they arrive.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 4096, start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next event, nil until more bytes arrive, or the failure that ends the connection (again on every later
    /// call).
    public mutating func next() throws(WebSocketFailure) -> WebSocketEvent? {
        if let failed { throw failed }
        do throws(WebSocketFailure) {
            while true {
                guard let frame = try nextFrame() else { return nil }
                if let event = try assemble(frame) { return event }
            }
        } catch {
            failed = error
            buffer = []
            start = 0
            fragments = []
            throw error
        }
    }

    private struct Frame {
        let fin: Bool
        let opcode: WebSocketOpcode
        let payload: [UInt8]
    }

    private mutating func nextFrame() throws(WebSocketFailure) -> Frame? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        let first = buffer[start], second = buffer[start + 1]
        guard first & 0x70 == 0 else { throw WebSocketFailure(.protocolError, "reserved bits set; no extension was agreed") }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw WebSocketFailure(.protocolError, "unknown opcode \(first & 0x0F)")
        }
        let fin = first & 0x80 != 0
        let masked = second & 0x80 != 0
        switch role {
        case .server where !masked: throw WebSocketFailure(.protocolError, "a client's frames must be masked")
        case .client where masked: throw WebSocketFailure(.protocolError, "a server's frames must not be masked")
        default: break
        }
        if opcode.isControl {
            guard fin else { throw WebSocketFailure(.protocolError, "a control frame must not be fragmented") }
            guard second & 0x7F <= 125 else { throw WebSocketFailure(.protocolError, "a control frame holds at most 125 bytes") }
        }
        var headerLength = 2
        var length = UInt64(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
            guard length >= 126 else { throw WebSocketFailure(.protocolError, "a length of \(length) must use the short form") }
            headerLength = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for index in 2..<10 { length = length << 8 | UInt64(buffer[start + index]) }
            guard length >> 63 == 0 else { throw WebSocketFailure(.protocolError, "the length's top bit is set") }
            guard length > 0xFFFF else { throw WebSocketFailure(.protocolError, "a length of \(length) must use a shorter form") }
            headerLength = 10
        }
        // Before any arithmetic on the length: what the message already holds plus this frame, within the limit.
        let held = opcode == .continuation ? fragments.count : 0
        guard length <= UInt64(maxMessageBytes - held) else {
            throw WebSocketFailure(.messageTooBig, "a message over the limit of \(maxMessageBytes) bytes")
        }
        let count = Int(length)
        let maskLength = masked ? 4 : 0
        guard available >= headerLength + maskLength + count else { return nil }
        let payloadStart = start + headerLength + maskLength
        var payload = Array(buffer[payloadStart..<payloadStart + count])
        if masked {
            let key = buffer[(start + headerLength)..<(start + headerLength + 4)].map { $0 }
            for index in payload.indices { payload[index] ^= key[index & 3] }
        }
        start = payloadStart + count
        return Frame(fin: fin, opcode: opcode, payload: payload)
    }

    private mutating func assemble(_ frame: Frame) throws(WebSocketFailure) -> WebSocketEvent? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return try Self.close(frame.payload)
        case .continuation:
            guard let opcode = fragmentedOpcode else {
                throw WebSocketFailure(.protocolError, "a continuation frame with no message to continue")
            }
            fragments += frame.payload
            guard frame.fin else { return nil }
            fragmentedOpcode = nil
            defer { fragments = [] }
            return try Self.message(opcode, fragments)
        case .text, .binary:
            guard fragmentedOpcode == nil else {
                throw WebSocketFailure(.protocolError, "a new message began before the fragmented one ended")
            }
            guard frame.fin else {
                fragmentedOpcode = frame.opcode
                fragments = frame.payload
                return nil
            }
            return try Self.message(frame.opcode, frame.payload)
        }
    }

    private static func message(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws(WebSocketFailure) -> WebSocketEvent {
        guard opcode == .text else { return .binary(payload) }
        guard let text = String(validating: payload, as: UTF8.self) else {
            throw WebSocketFailure(.invalidData, "a text message that is not valid UTF-8")
        }
        return .text(text)
    }

    private static func close(_ payload: [UInt8]) throws(WebSocketFailure) -> WebSocketEvent {
        guard !payload.isEmpty else { return .close(.noStatus, reason: "") }
        guard payload.count >= 2 else { throw WebSocketFailure(.protocolError, "a close frame of 1 byte") }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isSendable else { throw WebSocketFailure(.protocolError, "close code \(code.rawValue) may not be sent") }
        guard let reason = String(validating: payload.dropFirst(2), as: UTF8.self) else {
            throw WebSocketFailure(.invalidData, "a close reason that is not valid UTF-8")
        }
        return .close(code, reason: reason)
    }
}
