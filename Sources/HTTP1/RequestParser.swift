/// Why a request is refused: the status to answer with and the words of the answer. The connection closes after it.
public struct HTTPRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    public let status: Int
    public let message: String

    public init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { "\(status): \(message)" }
}

/// What a request parser made of the bytes so far.
public enum RequestParse: Sendable {
    /// Every byte given is taken; more are needed.
    case needMore
    /// A whole request, and how many of the bytes given last it used; the rest are the next request's (or, after an
    /// upgrade, the new protocol's).
    case request(HTTPRequest, consumed: Int)
    case refused(HTTPRefusal)
}

/// Reads requests as RFC 9112 frames them, strictly, from bytes as they arrive: a head of CR LF lines, then a body of
/// Content-Length bytes. Whatever a lenient reader and a proxy in front of it could read two ways (a bare CR or LF, a
/// folded or oddly spaced field, a signed or listed Content-Length, Transfer-Encoding beside it) is refused. Each byte
/// is looked at once: the parser keeps the head and body read so far, so any split of the bytes gives the same verdicts.
public struct RequestParser: Sendable {
    public static let maxHeaderBytes = 8 * 1024
    public static let maxBodyBytes = 16 * 1024
    /// The last index at which the head's closing CR LF CR LF may start is `maxHeaderBytes`, so its second CR is at most here.
    static let lastCR = maxHeaderBytes + 2

    private enum Phase: Sendable {
        /// The head so far is in `head`; `ending` counts the bytes of its closing CR LF CR LF seen at its end (0 to 3).
        case head(ending: Int)
        /// The head is read (its body is in `body` as it arrives); `left` bytes of the body are to come.
        case body(HTTPRequest, left: Int)
        /// A refusal was given; nothing more is read.
        case refused(HTTPRefusal)
    }

    private var phase = Phase.head(ending: 0)
    private var head: [UInt8] = []
    private var body: [UInt8] = []

    public init() {}

    /// Reads `bytes`, the next that arrived (after what an earlier call consumed).
    public mutating func read(_ bytes: ArraySlice<UInt8>) -> RequestParse {
        var index = bytes.startIndex
        while true {
            switch phase {
            case .refused(let refusal):
                return .refused(refusal)
            case .head(let ending):
                let scan = bytes.withUnsafeBufferPointer { Self.scanHead(UnsafeBufferPointer(rebasing: $0[(index - bytes.startIndex)...]),
                                                                         ending: ending, held: head.count) }
                let parsedHead: Result<HTTPRequest, HTTPRefusal>
                switch scan {
                case .refused(let refusal):
                    return refuse(refusal)
                case .partial(let ending):
                    head += bytes[index...]
                    phase = .head(ending: ending)
                    return .needMore
                case .whole(let used):
                    if head.isEmpty {  // the whole head arrived at once: read where it is
                        parsedHead = Self.request(bytes[index..<(index + used - 4)])
                    } else {
                        head += bytes[index..<(index + used)]
                        head.removeLast(4)
                        parsedHead = Self.request(head[...])
                    }
                    index += used
                    head.removeAll(keepingCapacity: true)
                }
                switch parsedHead {
                case .failure(let refusal): return refuse(refusal)
                case .success(let request):
                    switch Self.bodyLength(request) {
                    case .failure(let refusal): return refuse(refusal)
                    case .success(let length): phase = .body(request, left: length)
                    }
                }
            case .body(var request, let left):
                let taken = min(left, bytes.endIndex - index)
                body += bytes[index..<(index + taken)]
                index += taken
                guard left == taken else {
                    phase = .body(request, left: left - taken)
                    return .needMore
                }
                request.body = body
                body = []
                phase = .head(ending: 0)
                return .request(request, consumed: index - bytes.startIndex)
            }
        }
    }

    private enum HeadScan {
        /// Every byte is the head's; `ending` bytes of its closing CR LF CR LF are at its end.
        case partial(ending: Int)
        /// The head ends `used` bytes in, its CR LF CR LF included.
        case whole(used: Int)
        case refused(HTTPRefusal)
    }

    /// Looks once at each byte of `bytes`, which follow `held` bytes of head whose end matched `ending` bytes of
    /// CR LF CR LF: lines end with CR LF, and the head within `maxHeaderBytes`.
    private static func scanHead(_ bytes: UnsafeBufferPointer<UInt8>, ending: Int, held: Int) -> HeadScan {
        var ending = ending
        var offset = 0
        // Bytes before this offset are within `lastCR`.
        let allowed = min(bytes.count, lastCR - held + 1)
        while offset < bytes.count {
            let byte = bytes[offset]
            if ending == 1 || ending == 3 {
                guard byte == Syntax.lf else {
                    return .refused(HTTPRefusal(400, "the request head has a CR without LF after it; end each line with CR LF"))
                }
                if ending == 3 { return .whole(used: offset + 1) }
                ending = 2
                offset += 1
                continue
            }
            if offset >= allowed { return .refused(tooLong) }
            switch byte {
            case Syntax.cr: ending = ending == 2 ? 3 : 1
            case Syntax.lf: return .refused(HTTPRefusal(400, "the request head has an LF without CR before it; HTTP lines end with CR LF"))
            default:
                ending = 0
                offset += 1
                // The rest of the line, up to its CR (or a stray LF, or the limit).
                while offset < allowed, bytes[offset] > Syntax.cr || (bytes[offset] != Syntax.cr && bytes[offset] != Syntax.lf) { offset += 1 }
                continue
            }
            offset += 1
        }
        if ending != 1, ending != 3, held + bytes.count > lastCR { return .refused(tooLong) }
        return .partial(ending: ending)
    }

    static let tooLong = HTTPRefusal(431, "the request headers are over \(maxHeaderBytes) bytes")

    private mutating func refuse(_ status: Int, _ message: String) -> RequestParse {
        refuse(HTTPRefusal(status, message))
    }

    private mutating func refuse(_ refusal: HTTPRefusal) -> RequestParse {
        phase = .refused(refusal)
        head = []
        body = []
        return .refused(refusal)
    }

    // MARK: The head

    /// The request line and fields of a head (CR LF lines without the blank one), checked.
    static func request(_ head: ArraySlice<UInt8>) -> Result<HTTPRequest, HTTPRefusal> {
        var lines = Lines(head)
        let requestLine = lines.next() ?? head[head.startIndex..<head.startIndex]
        guard let first = requestLine.firstIndex(of: Syntax.space), first > requestLine.startIndex,
              let second = requestLine[(first + 1)...].firstIndex(of: Syntax.space), second > first + 1,
              !requestLine[(second + 1)...].contains(Syntax.space) else {
            return .failure(HTTPRefusal(400, "malformed request line; expected METHOD /path HTTP/1.1, one space apart"))
        }
        let (method, target, version) = (requestLine[..<first], requestLine[(first + 1)..<second], requestLine[(second + 1)...])
        if let bad = method.first(where: { !Syntax.isTokenByte($0) }) {
            return .failure(HTTPRefusal(400, "the method has \(Syntax.describe(bad)), which no method has; use GET, POST or OPTIONS"))
        }
        if let refusal = checkTarget(target) { return .failure(refusal) }
        guard version.elementsEqual("HTTP/1.1".utf8) || version.elementsEqual("HTTP/1.0".utf8) else {
            let shown = String(decoding: version.prefix(16).filter { $0 > 0x20 && $0 < 0x7F }, as: UTF8.self)
            return .failure(HTTPRefusal(400, "unsupported protocol \"\(shown)\"; use HTTP/1.1"))
        }
        var list: [HTTPFields.Field] = []
        list.reserveCapacity(8)
        while let line = lines.next() {
            switch field(line) {
            case .success(let field): list.append(field)
            case .failure(let refusal): return .failure(refusal)
            }
        }
        let fields = HTTPFields(list)
        // RFC 9112 §3.2: exactly one Host in HTTP/1.1 (a proxy and we could otherwise disagree on the target's host).
        let hosts = fields.reduce(0) { FieldName.equal($1.name, "Host") ? $0 + 1 : $0 }
        if hosts > 1 { return .failure(HTTPRefusal(400, "the request has \(hosts) Host headers; send one")) }
        if hosts == 0, version.elementsEqual("HTTP/1.1".utf8) {
            return .failure(HTTPRefusal(400, "an HTTP/1.1 request needs a Host header, such as Host: 127.0.0.1"))
        }
        let request = HTTPRequest(method: String(decoding: method, as: UTF8.self), target: String(decoding: target, as: UTF8.self),
                                  version: String(decoding: version, as: UTF8.self), fields: fields)
        let path = target.prefix { $0 != UInt8(ascii: "?") }
        if path.contains(UInt8(ascii: "%")), Percent.decoded(Substring(decoding: path, as: UTF8.self)) == nil {
            return .failure(malformedEscape)
        }
        return .success(request)
    }

    /// One `Name: value` line: a token, a colon right after it, and a value of visible characters, spaces and tabs
    /// (UTF-8 allowed), without the spaces and tabs around it.
    static func field(_ line: ArraySlice<UInt8>) -> Result<HTTPFields.Field, HTTPRefusal> {
        if let first = line.first, first == Syntax.space || first == Syntax.tab {
            return .failure(HTTPRefusal(400, "a header line starts with a space or tab (obsolete line folding); put each header on one line"))
        }
        guard let colon = line.firstIndex(of: Syntax.colon), colon != line.startIndex else {
            return .failure(HTTPRefusal(400, "malformed header line; expected Name: value"))
        }
        let name = line[..<colon]
        if let last = name.last, last == Syntax.space || last == Syntax.tab {
            return .failure(HTTPRefusal(400, "a header has a space before its colon; write Name: value"))
        }
        if let bad = name.first(where: { !Syntax.isTokenByte($0) }) {
            return .failure(HTTPRefusal(400, "a header name has \(Syntax.describe(bad)); names are letters, digits and !#$%&'*+-.^_`|~"))
        }
        let value = Syntax.trimmed(line[(colon + 1)...])
        let nameText = String(decoding: name, as: UTF8.self)
        var ascii = true
        for byte in value {
            guard Syntax.isValueByte(byte) else {
                return .failure(HTTPRefusal(400, "the \(nameText.prefix(40)) header has the control character \(Syntax.describe(byte)); send text only"))
            }
            if byte >= 0x80 { ascii = false }
        }
        let valueText: String
        if ascii {
            // ASCII is UTF-8 as it stands; `String(validating:)` is unspecialized generic code, ~1 000 instructions a line.
            valueText = String(decoding: value, as: UTF8.self)
        } else {
            guard let text = String(validating: value, as: UTF8.self) else {
                return .failure(HTTPRefusal(400, "the \(nameText.prefix(40)) header is not UTF-8 text"))
            }
            valueText = text
        }
        return .success(HTTPFields.Field(name: nameText, value: valueText))
    }

    /// A refusal when the request target is not `*` or an origin-form path and query of RFC 3986's characters.
    static func checkTarget(_ target: ArraySlice<UInt8>) -> HTTPRefusal? {
        if target.elementsEqual(CollectionOfOne(UInt8(ascii: "*"))) { return nil }
        guard target.first == UInt8(ascii: "/") else {
            return HTTPRefusal(400, "the request target must start with /; send the path, such as /ping")
        }
        var index = target.startIndex
        while index < target.endIndex {
            let byte = target[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < target.endIndex, Syntax.hexValue(target[index + 1]) != nil, Syntax.hexValue(target[index + 2]) != nil else {
                    return malformedEscape
                }
                index += 3
                continue
            }
            guard Syntax.isTargetByte(byte) else {
                return HTTPRefusal(400, "the request target has \(Syntax.describe(byte)), which must be percent-encoded (%\(Syntax.twoHexDigits(byte)))")
            }
            index += 1
        }
        return nil
    }

    static let malformedEscape = HTTPRefusal(400, "the request path has a malformed %-escape; write % as %25")

    /// The body's length from Content-Length, which must be digits and agree with itself; Transfer-Encoding is refused.
    static func bodyLength(_ request: HTTPRequest) -> Result<Int, HTTPRefusal> {
        var length: String?, conflicting = false, chunked = false
        for field in request.fields {
            if FieldName.equal(field.name, "Content-Length") {
                if let first = length { conflicting = conflicting || field.value != first } else { length = field.value }
            } else if FieldName.equal(field.name, "Transfer-Encoding") {
                chunked = true
            }
        }
        if chunked {
            return .failure(length == nil
                ? HTTPRefusal(411, "chunked bodies are not accepted; send the body with a Content-Length")
                : HTTPRefusal(400, "the request has both Transfer-Encoding and Content-Length; send only Content-Length"))
        }
        guard let text = length else {
            if request.method == "POST" || request.method == "PUT" {
                return .failure(HTTPRefusal(411, "a \(request.method) needs a Content-Length header"))
            }
            return .success(0)
        }
        guard !conflicting else {
            return .failure(HTTPRefusal(400, "conflicting Content-Length headers; send one"))
        }
        guard !text.isEmpty, text.utf8.allSatisfy(Syntax.isDigit) else {
            return .failure(HTTPRefusal(400, "Content-Length \"\(text.prefix(20))\" is not a byte count; send digits only"))
        }
        // Digits only; more than 9 of them (past leading zeros) are over the limit and would not fit an Int32.
        let digits = text.utf8.drop { $0 == UInt8(ascii: "0") }
        guard digits.count <= 9, case let length = digits.reduce(0, { $0 * 10 + Int($1 - UInt8(ascii: "0")) }), length <= maxBodyBytes else {
            return .failure(HTTPRefusal(413, "the body is \(text.prefix(20)) bytes; at most \(maxBodyBytes) are accepted"))
        }
        return .success(length)
    }

    /// The lines of a head, split at each CR (which the scan found to be followed by LF).
    struct Lines: IteratorProtocol {
        var rest: ArraySlice<UInt8>
        var done = false
        init(_ head: ArraySlice<UInt8>) { rest = head }

        mutating func next() -> ArraySlice<UInt8>? {
            if done { return nil }
            guard let cr = rest.firstIndex(of: Syntax.cr) else {
                done = true
                return rest
            }
            defer { rest = rest[(cr + 2)...] }
            return rest[..<cr]
        }
    }
}
