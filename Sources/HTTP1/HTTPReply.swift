/// One HTTP/1.1 response: as a client read it (the final one, after any 1xx), or as a server will send it.
public struct HTTPReply: Sendable, Equatable {
    public var status: Int
    public var fields: HTTPFields
    public var body: [UInt8]

    public init(status: Int, fields: HTTPFields = [], body: [UInt8] = []) {
        self.status = status
        self.fields = fields
        self.body = body
    }

    /// The fields named `name` joined as RFC 9110 combines them.
    public func header(_ name: String) -> String? { fields.value(name) }

    /// The bytes on the wire: the status line with the status's reason, the fields as they are (framing fields are the
    /// caller's), a blank line, and the body unless `withBody` is false (the answer to a HEAD).
    public func serialized(withBody: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + body.count)
        Self.appendStatusLine(status, to: &bytes)
        Wire.append(fields, to: &bytes)
        bytes.append(Syntax.cr)
        bytes.append(Syntax.lf)
        if withBody { bytes += body }
        return bytes
    }

    /// `HTTP/1.1 200 OK` and its CR LF.
    public static func appendStatusLine(_ status: Int, to bytes: inout [UInt8]) {
        append("HTTP/1.1 ", to: &bytes)
        if (100...999).contains(status) {
            bytes.append(UInt8(ascii: "0") + UInt8(status / 100))
            bytes.append(UInt8(ascii: "0") + UInt8(status / 10 % 10))
            bytes.append(UInt8(ascii: "0") + UInt8(status % 10))
        } else {
            append(String(status), to: &bytes)
        }
        bytes.append(Syntax.space)
        append(reason(status), to: &bytes)
        bytes.append(Syntax.cr)
        bytes.append(Syntax.lf)
    }

    /// `Name: value` and its CR LF.
    public static func appendField(_ name: String, _ value: String, to bytes: inout [UInt8]) {
        append(name, to: &bytes)
        bytes.append(Syntax.colon)
        bytes.append(Syntax.space)
        append(value, to: &bytes)
        bytes.append(Syntax.cr)
        bytes.append(Syntax.lf)
    }

    /// `text`'s UTF-8, copied as one block (appending `text.utf8` goes a byte at a time through the view).
    public static func append(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// The reason phrase written after a status.
    public static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 421: "Misdirected Request"
        case 426: "Upgrade Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status \(status)"
        }
    }
}
