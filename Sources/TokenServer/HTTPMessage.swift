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
        headers.first { HeaderName.equal($0.name, name) }?.value
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
        json(status, member: "error", message, headers: headers)
    }

    /// `{name: text}`: the bytes `json(status, [name: text])` gives, without an encoder when no character needs escaping.
    static func json(_ status: Int, member name: String, _ text: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        var body: [UInt8] = []
        body.reserveCapacity(name.utf8.count + text.utf8.count + 7)
        body.append(UInt8(ascii: "{"))
        guard PlainJSON.appendString(name, to: &body) else { return json(status, [name: text], headers: headers) }
        body.append(UInt8(ascii: ":"))
        guard PlainJSON.appendString(text, to: &body) else { return json(status, [name: text], headers: headers) }
        body.append(UInt8(ascii: "}"))
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    func serialized(keepAlive: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(160 + body.count + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 })
        bytes.append(contentsOf: "HTTP/1.1 ".utf8)
        PlainJSON.appendDecimal(status, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: Self.reason(status).utf8)
        bytes.append(contentsOf: "\r\n".utf8)
        if !body.isEmpty || status != 204 { bytes.append(contentsOf: "Content-Type: application/json\r\n".utf8) }
        bytes.append(contentsOf: "Cache-Control: no-store\r\nContent-Length: ".utf8)
        PlainJSON.appendDecimal(body.count, to: &bytes)
        bytes.append(contentsOf: (keepAlive ? "\r\nConnection: keep-alive\r\n" : "\r\nConnection: close\r\n").utf8)
        for header in headers {
            bytes.append(contentsOf: header.name.utf8)
            bytes.append(contentsOf: ": ".utf8)
            bytes.append(contentsOf: header.value.utf8)
            bytes.append(contentsOf: "\r\n".utf8)
        }
        bytes.append(contentsOf: "\r\n".utf8)
        bytes.append(contentsOf: body)
        return bytes
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
        guard let headEnd = headEnd(in: buffer) else {
            if buffer.count >= 2, zip(buffer, buffer.dropFirst()).contains(where: { $0 == 10 && $1 == 10 }) {
                return .refuse(.error(400, "the request's lines end with LF alone; HTTP needs CR LF"))
            }
            return buffer.count > maxHeaderBytes
                ? .refuse(.error(431, "the request headers are over \(maxHeaderBytes) bytes"))
                : .incomplete
        }
        guard headEnd <= maxHeaderBytes else {
            return .refuse(.error(431, "the request headers are over \(maxHeaderBytes) bytes"))
        }
        let parsed: Result<Head, Refusal>
        if buffer[..<headEnd].allSatisfy({ $0 < 0x80 }) {
            parsed = asciiHead(buffer[..<headEnd])
        } else {
            guard let head = String(validating: buffer[..<headEnd], as: UTF8.self) else {
                return .refuse(.error(400, "the request head is not UTF-8 text"))
            }
            parsed = textHead(head)
        }
        let head: Head
        switch parsed {
        case .success(let value): head = value
        case .failure(let refusal): return .refuse(refusal.response)
        }
        let headers = head.headers
        let (path, query) = splitTarget(head.target)
        guard let path else { return .refuse(.error(400, "the request path has a malformed %-escape")) }
        var request = HTTPRequest(method: head.method, path: path, query: query, version: head.version,
                                  headers: headers, body: [])
        let bodyStart = headEnd + 4

        if request.header("Transfer-Encoding") != nil {
            return .refuse(.error(411, "chunked bodies are not accepted; send the body with a Content-Length"))
        }
        var lengthText: String?
        for header in headers where HeaderName.equal(header.name, "Content-Length") {
            guard lengthText == nil || lengthText == header.value else { return .refuse(.error(400, "conflicting Content-Length headers")) }
            lengthText = header.value
        }
        var length = 0
        if let text = lengthText {
            guard let value = Int(text), value >= 0, text.utf8.allSatisfy({ $0 < 0x80 }) else {
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

    /// The request line and headers, before the target is decoded.
    struct Head {
        var method: String
        var target: String
        var version: String
        var headers: [(name: String, value: String)]
    }

    struct Refusal: Error {
        let response: HTTPResponse
        static let requestLine = Refusal(response: .error(400, "malformed request line; expected METHOD /path HTTP/1.1"))
        static let headerLine = Refusal(response: .error(400, "malformed header line; expected Name: value"))
        static func version(_ version: some StringProtocol) -> Refusal {
            Refusal(response: .error(400, "unsupported protocol \"\(version.prefix(16))\"; use HTTP/1.1"))
        }
    }

    /// A head that is all ASCII, read byte by byte; the same result `textHead` gives for it.
    static func asciiHead(_ head: ArraySlice<UInt8>) -> Result<Head, Refusal> {
        let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t"), colon = UInt8(ascii: ":")
        var lines = Lines(head)
        let requestLine = lines.next() ?? head[head.startIndex..<head.startIndex]
        guard let firstSpace = requestLine.firstIndex(of: space),
              let secondSpace = requestLine[(firstSpace + 1)...].firstIndex(of: space),
              !requestLine[(secondSpace + 1)...].contains(space) else {
            return .failure(.requestLine)
        }
        let method = requestLine[..<firstSpace], target = requestLine[(firstSpace + 1)..<secondSpace]
        let version = requestLine[(secondSpace + 1)...]
        guard !method.isEmpty, target.first == UInt8(ascii: "/") || target.elementsEqual(CollectionOfOne(UInt8(ascii: "*"))) else {
            return .failure(.requestLine)
        }
        guard version.elementsEqual("HTTP/1.1".utf8) || version.elementsEqual("HTTP/1.0".utf8) else {
            return .failure(.version(String(decoding: version, as: UTF8.self)))
        }
        var headers: [(name: String, value: String)] = []
        while let line = lines.next() {
            guard let colonIndex = line.firstIndex(of: colon), colonIndex != line.startIndex,
                  !line[..<colonIndex].contains(where: { $0 == space || $0 == tab }) else {
                return .failure(.headerLine)
            }
            var value = line[(colonIndex + 1)...]
            while let first = value.first, first == space || first == tab { value.removeFirst() }
            while let last = value.last, last == space || last == tab { value.removeLast() }
            headers.append((String(decoding: line[..<colonIndex], as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
        return .success(Head(method: String(decoding: method, as: UTF8.self), target: String(decoding: target, as: UTF8.self),
                             version: String(decoding: version, as: UTF8.self), headers: headers))
    }

    /// The lines of a head, split at each CR LF.
    struct Lines: IteratorProtocol {
        var rest: ArraySlice<UInt8>
        var done = false
        init(_ head: ArraySlice<UInt8>) { rest = head }

        mutating func next() -> ArraySlice<UInt8>? {
            if done { return nil }
            var index = rest.startIndex
            while index + 1 < rest.endIndex {
                if rest[index] == 13, rest[index + 1] == 10 {
                    defer { rest = rest[(index + 2)...] }
                    return rest[..<index]
                }
                index += 1
            }
            done = true
            return rest
        }
    }

    /// Any head that is UTF-8 text, read as text.
    static func textHead(_ head: String) -> Result<Head, Refusal> {
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, !requestLine[0].isEmpty, requestLine[1].hasPrefix("/") || requestLine[1] == "*" else {
            return .failure(.requestLine)
        }
        let version = String(requestLine[2])
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { return .failure(.version(version)) }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
                  !line[..<colon].contains(where: { $0 == " " || $0 == "\t" }) else {
                return .failure(.headerLine)
            }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return .success(Head(method: String(requestLine[0]), target: String(requestLine[1]), version: version, headers: headers))
    }

    static func splitTarget(_ target: String) -> (String?, [String: String]) {
        // A plain path (ASCII, no query, no escapes) decodes to itself.
        if target.utf8.allSatisfy({ $0 != UInt8(ascii: "%") && $0 != UInt8(ascii: "?") && $0 < 0x80 }) {
            return (target, [:])
        }
        return decodeTarget(target)
    }

    /// The path, percent-decoded (nil when an escape is malformed), and the query parameters.
    static func decodeTarget(_ target: String) -> (String?, [String: String]) {
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

    /// Where the first CR LF CR LF starts.
    private static func headEnd(in buffer: [UInt8]) -> Int? {
        buffer.withUnsafeBufferPointer { bytes -> Int? in
            guard bytes.count >= 4 else { return nil }
            var index = 0
            let last = bytes.count - 4
            while index <= last {
                if bytes[index + 3] != 10 {
                    // The byte at +3 is not LF: no match can start at index...index+3 unless it is CR at +3 etc.
                    index += bytes[index + 3] == 13 ? 1 : 4
                    continue
                }
                if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13 { return index }
                index += 1
            }
            return nil
        }
    }
}

/// Header names compare case-insensitively: byte by byte when both are ASCII, as Foundation does otherwise.
enum HeaderName {
    static func equal(_ a: String, _ b: String) -> Bool {
        var (a, b) = (a, b)
        if let ascii = a.withUTF8({ x in b.withUTF8 { y in asciiEqual(x, y) } }) { return ascii }
        return a.caseInsensitiveCompare(b) == .orderedSame
    }

    /// Whether two ASCII names are equal but for case; nil when either is not ASCII.
    private static func asciiEqual(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool? {
        var high: UInt8 = 0
        for byte in x { high |= byte }
        for byte in y { high |= byte }
        guard high < 0x80 else { return nil }
        guard x.count == y.count else { return false }
        for index in 0..<x.count where lower(x[index]) != lower(y[index]) { return false }
        return true
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
