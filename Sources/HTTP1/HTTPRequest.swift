/// One HTTP/1.1 request: as a server read it, or as a client will send it.
public struct HTTPRequest: Sendable {
    public var method: String
    /// As on the wire: origin-form (`/path?query`) or `*` as a server reads it; a client may give the absolute form
    /// (`https://host:port/path?query`, RFC 9112 §3.2.2), which its transport turns into origin-form and `Host`.
    public var target: String
    /// `HTTP/1.1` or `HTTP/1.0`.
    public var version: String
    public var fields: HTTPFields
    public var body: [UInt8]

    public init(method: String = "GET", target: String, version: String = "HTTP/1.1", fields: HTTPFields = [], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.version = version
        self.fields = fields
        self.body = body
    }

    /// The first field of this name (any case).
    public func header(_ name: String) -> String? { fields.first(name) }

    /// The target's path, percent-decoded, without the query (a server's parser refuses a path that does not decode).
    public var path: String {
        var target = target
        if target.withUTF8({ Percent.plainWithoutQuery($0) }) { return target }
        let path = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(target[..<$0]) } ?? target
        return Percent.plain(path) ? path : (Percent.decoded(Substring(path)) ?? path)
    }

    /// The query's parameters, percent-decoded and `+` read as a space; the last of a repeated name wins.
    public var query: [String: String] {
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return [:] }
        var query: [String: String] = [:]
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Percent.decoded(parts[0], plusIsSpace: true) ?? String(parts[0])
            query[name] = parts.count > 1 ? (Percent.decoded(parts[1], plusIsSpace: true) ?? "") : ""
        }
        return query
    }

    /// Whether the connection stays open after the response: `Connection` is a list, and a `close` anywhere in it
    /// closes; otherwise HTTP/1.1 stays open and HTTP/1.0 only with `keep-alive`.
    public var keepAlive: Bool {
        let options = fields.options("Connection")
        if options.contains("close") { return false }
        return version == "HTTP/1.1" || options.contains("keep-alive")
    }

    /// The bytes on the wire: the request line, the fields as they are, a blank line and the body. Framing fields
    /// (`Content-Length`, `Host`) are the caller's.
    public func serialized() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + target.utf8.count + body.count)
        bytes += method.utf8
        bytes.append(Syntax.space)
        bytes += target.utf8
        bytes.append(Syntax.space)
        bytes += version.utf8
        bytes.append(Syntax.cr)
        bytes.append(Syntax.lf)
        Wire.append(fields, to: &bytes)
        bytes.append(Syntax.cr)
        bytes.append(Syntax.lf)
        bytes += body
        return bytes
    }

    /// Whether `method` is one (a token).
    public static func isMethod(_ method: String) -> Bool { Syntax.isToken(method) }
}

/// Writing a head's fields.
enum Wire {
    static func append(_ fields: HTTPFields, to bytes: inout [UInt8]) {
        for field in fields { HTTPReply.appendField(field.name, field.value, to: &bytes) }
    }
}

/// Percent-decoding as RFC 3986 writes it.
enum Percent {
    /// A target part that decodes to itself: ASCII without `%`.
    static func plain(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 != UInt8(ascii: "%") && $0 < 0x80 }
    }

    /// A target that is its own path: ASCII without `%` and without a query.
    static func plainWithoutQuery(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte == UInt8(ascii: "%") || byte == UInt8(ascii: "?") || byte >= 0x80 { return false }
        return true
    }

    /// `text` with each %XX made its byte (and `+` a space when asked); nil when an escape is malformed or the bytes are
    /// not UTF-8.
    static func decoded(_ text: Substring, plusIsSpace: Bool = false) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var input = text.utf8[...]
        while let byte = input.first {
            input = input.dropFirst()
            switch byte {
            case UInt8(ascii: "%"):
                let digits = Array(input.prefix(2))
                guard digits.count == 2, let high = Syntax.hexValue(digits[0]), let low = Syntax.hexValue(digits[1]) else { return nil }
                bytes.append(UInt8(high * 16 + low))
                input = input.dropFirst(2)
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(Syntax.space)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
