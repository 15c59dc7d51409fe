/// One value of Redis's protocol (RESP2), as a server sends it.
public enum RESPValue: Equatable, Sendable {
    /// `+OK`
    case simple(String)
    /// `-ERR ...`: the server refused the command.
    case error(String)
    case integer(Int64)
    /// `$n`: bytes, nil for the null bulk string (`$-1`).
    case bulk([UInt8]?)
    /// `*n`: values, nil for the null array (`*-1`).
    case array([RESPValue]?)

    /// The value as text: a simple or bulk string (bytes read as UTF-8); nil otherwise, and for a null.
    public var text: String? {
        switch self {
        case .simple(let text): text
        case .bulk(let bytes?): String(decoding: bytes, as: UTF8.self)
        default: nil
        }
    }

    /// Whether the value is a null bulk string or array: what SET NX answers when it set nothing, GET for no key.
    public var isNull: Bool { self == .bulk(nil) || self == .array(nil) }
}

/// A command as RESP writes it: an array of bulk strings.
public enum RESPCommand {
    public static func encode(_ parts: [String]) -> [UInt8] {
        var out = Array("*\(parts.count)\r\n".utf8)
        for part in parts {
            let bytes = Array(part.utf8)
            out += Array("$\(bytes.count)\r\n".utf8)
            out += bytes
            out += [13, 10]
        }
        return out
    }
}
