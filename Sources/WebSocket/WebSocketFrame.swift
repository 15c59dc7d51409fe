/// A frame's opcode (RFC 6455 §5.2); the values this codec knows, no extensions.
public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0, text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xA

    /// Close, ping and pong: at most 125 bytes, never fragmented.
    public var isControl: Bool { rawValue & 0x8 != 0 }
}

/// A close frame's status code (RFC 6455 §7.4).
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let normal = WebSocketCloseCode(rawValue: 1000)
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// Not sent: what a close frame without a code means.
    public static let noStatus = WebSocketCloseCode(rawValue: 1005)
    public static let invalidData = WebSocketCloseCode(rawValue: 1007)
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    public static let internalError = WebSocketCloseCode(rawValue: 1011)

    /// Whether a peer may send this code in a close frame: the registered ones in use, and 3000–4999.
    public var isSendable: Bool {
        switch rawValue {
        case 1000...1003, 1007...1011, 3000...4999: true
        default: false
        }
    }

    public var description: String { String(rawValue) }
}

/// Writes frames: a server's unmasked, a client's masked with the key it is given.
public enum WebSocketFrame {
    /// The most a control frame's payload may hold.
    public static let maxControlPayload = 125

    /// One whole (FIN) frame; `mask` is the client's 4-byte masking key, nil for a server's frame.
    public static func encode(_ opcode: WebSocketOpcode, _ payload: some Collection<UInt8>, mask: (UInt8, UInt8, UInt8, UInt8)? = nil) -> [UInt8] {
        let count = payload.count
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 14)
        bytes.append(0x80 | opcode.rawValue)
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        if count < 126 {
            bytes.append(maskBit | UInt8(count))
        } else if count <= 0xFFFF {
            bytes += [maskBit | 126, UInt8(count >> 8), UInt8(count & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: UInt64(count) >> UInt64(shift))) }
        }
        guard let mask else {
            bytes += payload
            return bytes
        }
        bytes += [mask.0, mask.1, mask.2, mask.3]
        let start = bytes.count
        bytes += payload
        // Masked in place, through a pointer: a byte at a time through the generic collection was the largest cost of
        // sending a join (`Docs/benchmarks.md`, "Hub").
        bytes.withUnsafeMutableBufferPointer { buffer in
            for index in start..<buffer.count { buffer[index] ^= buffer[start - 4 + ((index - start) & 3)] }
        }
        return bytes
    }

    /// A close frame with this code and reason; the reason is cut (at a character) to fit 123 bytes.
    public static func close(_ code: WebSocketCloseCode, reason: String, mask: (UInt8, UInt8, UInt8, UInt8)? = nil) -> [UInt8] {
        encode(.close, closePayload(code, reason: reason), mask: mask)
    }

    static func closePayload(_ code: WebSocketCloseCode, reason: String) -> [UInt8] {
        var text = Substring(reason)
        while text.utf8.count > maxControlPayload - 2 { text = text.dropLast() }
        return [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)] + Array(text.utf8)
    }
}
