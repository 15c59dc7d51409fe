import Foundation

/// One HTTP/1.1 request, as read from a connection.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path, percent-decoded, without the query.
    public var path: String
    /// Query parameters, percent-decoded; the last of a repeated name wins.
    public var query: [String: String]
    public var version: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    /// The first header of this name (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Whether the connection stays open after the response (HTTP/1.1 unless `Connection: close`).
    var keepAlive: Bool {
        let connection = header("Connection")?.lowercased()
        return version == "HTTP/1.1" ? connection != "close" : connection == "keep-alive"
    }
}

/// One response; every one is JSON and `Cache-Control: no-store`.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON answer.
    public static func json(_ status: Int, _ value: some Encodable, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(value)).map { Array($0) } ?? Array(#"{"error":"could not encode the answer"}"#.utf8)
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    /// `{"error": message}` with this status.
    public static func error(_ status: Int, _ message: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        json(status, ["error": message], headers: headers)
    }

    func serialized(keepAlive: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        if !body.isEmpty || status != 204 { head += "Content-Type: application/json\r\n" }
        head += "Cache-Control: no-store\r\n"
        head += "Content-Length: \(body.count)\r\n"
        head += "Connection: \(keepAlive ? "keep-alive" : "close")\r\n"
        for header in headers { head += "\(header.name): \(header.value)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + body
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status \(status)"
        }
    }
}

/// Reads requests off the bytes of a connection: head first, then a body of Content-Length bytes.
enum RequestReader {
    static let maxHeaderBytes = 8 * 1024
    static let maxBodyBytes = 16 * 1024

    enum Outcome {
        /// More bytes are needed.
        case incomplete
        /// A whole request, and how many bytes of the buffer it used.
        case request(HTTPRequest, consumed: Int)
        /// The request is refused with this answer, and the connection closed.
        case refuse(HTTPResponse)
    }

    static func read(_ buffer: [UInt8]) -> Outcome {
        guard let headEnd = find(Array("\r\n\r\n".utf8), in: buffer) else {
            return buffer.count > maxHeaderBytes
                ? .refuse(.error(431, "the request headers are over \(maxHeaderBytes) bytes"))
                : .incomplete
        }
        guard headEnd <= maxHeaderBytes else {
            return .refuse(.error(431, "the request headers are over \(maxHeaderBytes) bytes"))
        }
        guard let head = String(validating: buffer[..<headEnd], as: UTF8.self) else {
            return .refuse(.error(400, "the request head is not UTF-8 text"))
        }
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, !requestLine[0].isEmpty, requestLine[1].hasPrefix("/") || requestLine[1] == "*" else {
            return .refuse(.error(400, "malformed request line; expected METHOD /path HTTP/1.1"))
        }
        let version = String(requestLine[2])
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return .refuse(.error(400, "unsupported protocol \"\(version.prefix(16))\"; use HTTP/1.1"))
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
                  !line[..<colon].contains(where: { $0 == " " || $0 == "\t" }) else {
                return .refuse(.error(400, "malformed header line; expected Name: value"))
            }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let target = String(requestLine[1])
        let (path, query) = splitTarget(target)
        guard let path else { return .refuse(.error(400, "the request path has a malformed %-escape")) }
        var request = HTTPRequest(method: String(requestLine[0]), path: path, query: query, version: version,
                                  headers: headers, body: [])
        let bodyStart = headEnd + 4

        if request.header("Transfer-Encoding") != nil {
            return .refuse(.error(411, "chunked bodies are not accepted; send the body with a Content-Length"))
        }
        let lengths = headers.filter { $0.name.caseInsensitiveCompare("Content-Length") == .orderedSame }.map(\.value)
        guard Set(lengths).count <= 1 else { return .refuse(.error(400, "conflicting Content-Length headers")) }
        var length = 0
        if let text = lengths.first {
            guard let value = Int(text), value >= 0, text.allSatisfy(\.isASCII) else {
                return .refuse(.error(400, "Content-Length \"\(text.prefix(20))\" is not a byte count"))
            }
            length = value
        } else if request.method == "POST" || request.method == "PUT" {
            return .refuse(.error(411, "a \(request.method) needs a Content-Length header"))
        }
        guard length <= maxBodyBytes else {
            return .refuse(.error(413, "the body is \(length) bytes; at most \(maxBodyBytes) are accepted"))
        }
        guard buffer.count - bodyStart >= length else { return .incomplete }
        request.body = Array(buffer[bodyStart..<bodyStart + length])
        return .request(request, consumed: bodyStart + length)
    }

    private static func splitTarget(_ target: String) -> (String?, [String: String]) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var query: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(kv[0]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(kv[0])
                let value = kv.count > 1 ? (String(kv[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "") : ""
                query[name] = value
            }
        }
        return (String(parts[0]).removingPercentEncoding, query)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<start + needle.count].elementsEqual(needle) { return start }
        }
        return nil
    }
}
