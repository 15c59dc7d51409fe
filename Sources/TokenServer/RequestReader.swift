import Foundation

/// One HTTP/1.1 request, as read from a connection.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path, percent-decoded, without the query.
    public var path: String
    /// Query parameters, percent-decoded; the last of a repeated name wins.
    public var query: [String: String]
    /// The request target exactly as sent (path and query, escapes undecoded): what a balancer in front reads.
    public var target: String
    public var version: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    /// The first header of this name (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { HeaderName.equal($0.name, name) }?.value
    }

    /// Whether the connection stays open after the response: `Connection` is a list, and a `close` anywhere in it
    /// closes; otherwise HTTP/1.1 stays open and HTTP/1.0 only with `keep-alive`.
    var keepAlive: Bool {
        var options: Set<String> = []
        for header in headers where HeaderName.equal(header.name, "Connection") {
            for option in header.value.split(separator: ",") {
                options.insert(option.trimmingCharacters(in: .whitespaces).lowercased())
            }
        }
        if options.contains("close") { return false }
        return version == "HTTP/1.1" || options.contains("keep-alive")
    }
}

/// Reads requests off the bytes of a connection as RFC 9112 frames them, strictly: a head of CR LF lines, then a
/// body of Content-Length bytes. Whatever a lenient reader and a proxy in front of it could read two ways (a bare CR
/// or LF, a folded or oddly spaced header, a signed or listed Content-Length, Transfer-Encoding beside it) is refused.
enum RequestReader {
    static let maxHeaderBytes = 8 * 1024
    static let maxBodyBytes = 16 * 1024

    /// Why a request is refused: the status and the words of the answer. The connection is closed after it.
    struct Refusal: Error, Equatable {
        let status: Int
        let message: String
        init(_ status: Int, _ message: String) {
            self.status = status
            self.message = message
        }
    }

    enum Outcome {
        /// More bytes are needed.
        case incomplete
        /// A whole request, and how many bytes of the buffer it used.
        case request(HTTPRequest, consumed: Int)
        case refuse(Refusal)
    }

    static func read(_ buffer: [UInt8]) -> Outcome {
        let headEnd: Int
        switch scanHead(buffer) {
        case .incomplete: return .incomplete
        case .refuse(let refusal): return .refuse(refusal)
        case .end(let end): headEnd = end
        }
        let head: Head
        switch parseHead(buffer[..<headEnd]) {
        case .success(let value): head = value
        case .failure(let refusal): return .refuse(refusal)
        }
        let (path, query) = splitTarget(head.target)
        guard let path else { return .refuse(Refusal(400, "the request path has a malformed %-escape; write % as %25")) }
        var request = HTTPRequest(method: head.method, path: path, query: query, target: head.target, version: head.version,
                                  headers: head.headers, body: [])
        let length: Int
        switch bodyLength(request) {
        case .success(let value): length = value
        case .failure(let refusal): return .refuse(refusal)
        }
        let bodyStart = headEnd + 4
        guard buffer.count - bodyStart >= length else { return .incomplete }
        request.body = Array(buffer[bodyStart..<bodyStart + length])
        return .request(request, consumed: bodyStart + length)
    }

    // MARK: Framing

    enum HeadScan {
        case incomplete
        /// The head ends at this index, where its closing CR LF CR LF starts.
        case end(Int)
        case refuse(Refusal)
    }

    /// Finds the end of the head, refusing a CR or LF that is not part of a CR LF and a head over the limit. Any
    /// prefix of the bytes gives `.incomplete` or the answer the whole gives, however the bytes arrive.
    static func scanHead(_ buffer: [UInt8]) -> HeadScan {
        let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
        // The last index at which the closing CR LF CR LF may start is maxHeaderBytes, so its second CR is at most here.
        let lastCR = maxHeaderBytes + 2
        return buffer.withUnsafeBufferPointer { bytes in
            var index = 0
            while index < bytes.count, index <= lastCR {
                switch bytes[index] {
                case cr:
                    guard index + 1 < bytes.count else { return .incomplete }
                    guard bytes[index + 1] == lf else {
                        return .refuse(Refusal(400, "the request head has a CR without LF after it; end each line with CR LF"))
                    }
                    if index >= 2, bytes[index - 2] == cr, bytes[index - 1] == lf { return .end(index - 2) }
                    index += 2
                case lf:
                    return .refuse(Refusal(400, "the request head has an LF without CR before it; HTTP lines end with CR LF"))
                default:
                    index += 1
                }
            }
            return index > lastCR ? .refuse(Refusal(431, "the request headers are over \(maxHeaderBytes) bytes")) : .incomplete
        }
    }

    /// The body's length from Content-Length, which must be digits and agree with itself; Transfer-Encoding is refused.
    static func bodyLength(_ request: HTTPRequest) -> Result<Int, Refusal> {
        let lengths = request.headers.filter { HeaderName.equal($0.name, "Content-Length") }.map(\.value)
        if request.header("Transfer-Encoding") != nil {
            return .failure(lengths.isEmpty
                ? Refusal(411, "chunked bodies are not accepted; send the body with a Content-Length")
                : Refusal(400, "the request has both Transfer-Encoding and Content-Length; send only Content-Length"))
        }
        guard let text = lengths.first else {
            if request.method == "POST" || request.method == "PUT" {
                return .failure(Refusal(411, "a \(request.method) needs a Content-Length header"))
            }
            return .success(0)
        }
        guard lengths.allSatisfy({ $0 == text }) else {
            return .failure(Refusal(400, "conflicting Content-Length headers; send one"))
        }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return .failure(Refusal(400, "Content-Length \"\(text.prefix(20))\" is not a byte count; send digits only"))
        }
        // Digits only; more than 9 of them (past leading zeros) are over the limit and would not fit an Int32.
        let digits = text.drop { $0 == "0" }
        guard digits.count <= 9, let length = Int(digits.isEmpty ? "0" : digits), length <= maxBodyBytes else {
            return .failure(Refusal(413, "the body is \(text.prefix(20)) bytes; at most \(maxBodyBytes) are accepted"))
        }
        return .success(length)
    }

    // MARK: The head

    /// The request line and headers, before the target is decoded.
    struct Head {
        var method: String
        var target: String
        var version: String
        var headers: [(name: String, value: String)]
    }

    /// Reads the head, which `scanHead` found to hold no CR or LF but the CR LF between lines.
    static func parseHead(_ head: ArraySlice<UInt8>) -> Result<Head, Refusal> {
        var lines = Lines(head)
        let requestLine = lines.next() ?? head[head.startIndex..<head.startIndex]
        let parts = requestLine.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            return .failure(Refusal(400, "malformed request line; expected METHOD /path HTTP/1.1, one space apart"))
        }
        let (method, target, version) = (parts[0], parts[1], parts[2])
        if let bad = method.first(where: { !isTokenByte($0) }) {
            return .failure(Refusal(400, "the method has \(describe(bad)), which no method has; use GET, POST or OPTIONS"))
        }
        if let refusal = checkTarget(target) { return .failure(refusal) }
        guard version.elementsEqual("HTTP/1.1".utf8) || version.elementsEqual("HTTP/1.0".utf8) else {
            let shown = String(decoding: version.prefix(16).filter { $0 > 0x20 && $0 < 0x7F }, as: UTF8.self)
            return .failure(Refusal(400, "unsupported protocol \"\(shown)\"; use HTTP/1.1"))
        }
        var headers: [(name: String, value: String)] = []
        while let line = lines.next() {
            switch parseField(line) {
            case .success(let field): headers.append(field)
            case .failure(let refusal): return .failure(refusal)
            }
        }
        // RFC 9112 §3.2: exactly one Host in HTTP/1.1 (a proxy and we could otherwise disagree on the target's host).
        let hosts = headers.count { HeaderName.equal($0.name, "Host") }
        if hosts > 1 { return .failure(Refusal(400, "the request has \(hosts) Host headers; send one")) }
        if hosts == 0, version.elementsEqual("HTTP/1.1".utf8) {
            return .failure(Refusal(400, "an HTTP/1.1 request needs a Host header, such as Host: 127.0.0.1"))
        }
        return .success(Head(method: String(decoding: method, as: UTF8.self), target: String(decoding: target, as: UTF8.self),
                             version: String(decoding: version, as: UTF8.self), headers: headers))
    }

    /// One `Name: value` line: a token, a colon right after it, and a value of visible characters, spaces and tabs
    /// (UTF-8 allowed), without the spaces and tabs around it.
    static func parseField(_ line: ArraySlice<UInt8>) -> Result<(name: String, value: String), Refusal> {
        let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
        if let first = line.first, first == space || first == tab {
            return .failure(Refusal(400, "a header line starts with a space or tab (obsolete line folding); put each header on one line"))
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon != line.startIndex else {
            return .failure(Refusal(400, "malformed header line; expected Name: value"))
        }
        let name = line[..<colon]
        if let last = name.last, last == space || last == tab {
            return .failure(Refusal(400, "a header has a space before its colon; write Name: value"))
        }
        if let bad = name.first(where: { !isTokenByte($0) }) {
            return .failure(Refusal(400, "a header name has \(describe(bad)); names are letters, digits and !#$%&'*+-.^_`|~"))
        }
        var value = line[(colon + 1)...]
        while let first = value.first, first == space || first == tab { value.removeFirst() }
        while let last = value.last, last == space || last == tab { value.removeLast() }
        let nameText = String(decoding: name, as: UTF8.self)
        if let bad = value.first(where: { ($0 < 0x20 && $0 != tab) || $0 == 0x7F }) {
            return .failure(Refusal(400, "the \(nameText.prefix(40)) header has the control character \(describe(bad)); send text only"))
        }
        guard let valueText = String(validating: value, as: UTF8.self) else {
            return .failure(Refusal(400, "the \(nameText.prefix(40)) header is not UTF-8 text"))
        }
        return .success((nameText, valueText))
    }

    /// A refusal when the request target is not `*` or an origin-form path and query of RFC 3986's characters.
    static func checkTarget(_ target: ArraySlice<UInt8>) -> Refusal? {
        if target.elementsEqual(CollectionOfOne(UInt8(ascii: "*"))) { return nil }
        guard target.first == UInt8(ascii: "/") else {
            return Refusal(400, "the request target must start with /; send the path, such as /ping")
        }
        var index = target.startIndex
        while index < target.endIndex {
            let byte = target[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < target.endIndex, isHexDigit(target[index + 1]), isHexDigit(target[index + 2]) else {
                    return Refusal(400, "the request path has a malformed %-escape; write % as %25")
                }
                index += 3
                continue
            }
            guard isTargetByte(byte) else {
                let escape = "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
                return Refusal(400, "the request target has \(describe(byte)), which must be percent-encoded (\(escape))")
            }
            index += 1
        }
        return nil
    }

    /// The lines of a head, split at each CR (which `scanHead` found to be followed by LF).
    struct Lines: IteratorProtocol {
        var rest: ArraySlice<UInt8>
        var done = false
        init(_ head: ArraySlice<UInt8>) { rest = head }

        mutating func next() -> ArraySlice<UInt8>? {
            if done { return nil }
            guard let cr = rest.firstIndex(of: UInt8(ascii: "\r")) else {
                done = true
                return rest
            }
            defer { rest = rest[(cr + 2)...] }
            return rest[..<cr]
        }
    }

    /// RFC 9110's tchar: what methods and header names are made of.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }

    /// RFC 3986's unreserved, sub-delims, ":", "@", "/" and "?": what a path and query are made of, besides %-escapes.
    static func isTargetByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || "-._~!$&'()*+,;=:@/?".utf8.contains(byte)
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
    }

    /// A byte as a person can read it in an error: `"{"` for a visible one, `byte 0x0A` otherwise.
    static func describe(_ byte: UInt8) -> String {
        byte > 0x20 && byte < 0x7F ? "\"\(Character(UnicodeScalar(byte)))\"" : "byte 0x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
    }

    // MARK: The target

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
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
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
