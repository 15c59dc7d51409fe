import PrintableText

/// Why an answer is not read: each case with its words.
public enum ResponseFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// It is not HTTP/1.1 as this reader takes it: what is wrong.
    case malformed(String)
    /// Its body passes the limit; its length when it announced one that fits an Int.
    case tooLong(bytes: Int?, limit: Int)
    /// The connection closed before the answer was whole: where.
    case cut(String)

    public var description: String {
        switch self {
        case .malformed(let why): "it is not HTTP/1.1 as tokencall reads it: \(why)"
        case .tooLong(let bytes?, let limit): "its body is \(bytes) bytes, over the limit of \(limit)"
        case .tooLong(nil, let limit): "its body is over the limit of \(limit) bytes"
        case .cut(let words): words
        }
    }
}

/// What a response parser made of the bytes so far.
public enum ResponseParse: Sendable, Equatable {
    case needMore
    /// The final answer (bytes after it are ignored).
    case response(HTTPReply)
    case failed(ResponseFailure)
}

/// One HTTP/1.x answer read strictly (RFC 9112) from bytes as they arrive: interim 1xx heads skipped, the body framed
/// by Content-Length, chunked coding or the close, and counted against `bodyLimit` before it is kept. Each byte is
/// looked at once (a head's end is searched for in what is new). No I/O: the socket transport feeds it, and so does
/// the `httpresponse` fuzz target.
public struct ResponseParser: Sendable {
    /// The most bytes the heads (interim ones included), or a chunked body's trailer section, may take.
    public static let headLimit = 16 * 1024
    /// The most bytes a chunk-size line may take, extensions included.
    public static let chunkLineLimit = 1024

    private enum Phase: Sendable {
        /// A head, up to its blank line, in `pending`.
        case head
        case length(left: Int)
        /// A chunk-size line, in `pending` up to its LF.
        case chunkSize
        case chunkData(left: Int)
        /// After a chunk's data: the CR LF that ends it, `seen` bytes of it so far.
        case chunkEnd(seen: Int)
        /// The trailer section: `total` bytes of it so far, its current line in `pending`.
        case trailer(total: Int)
        case untilClose
        case done
        /// A failure was given; it is given again.
        case failed(ResponseFailure)
    }

    private let bodyLimit: Int
    /// The request was a HEAD: the answer has no body whatever its fields say.
    private let bodiless: Bool
    private var phase = Phase.head
    /// The head or line being read, until it is whole.
    private var pending: [UInt8] = []
    /// Bytes of heads read so far, interim ones included.
    private var headBytes = 0
    private var head: Head?
    private var body: [UInt8] = []
    /// The connection can carry no other answer: bytes came after this one (nothing asked for them), or it was read to
    /// the close.
    private var spent = false

    /// A final answer's status and fields.
    private struct Head: Sendable {
        let status: Int
        let fields: HTTPFields
        /// HTTP/1.1 or later, whose connections stay open unless it says `Connection: close`.
        let persists: Bool
    }

    /// `method` is the request's: the answer to a HEAD has no body whatever its fields say.
    public init(bodyLimit: Int, method: String) {
        self.bodyLimit = bodyLimit
        bodiless = method == "HEAD"
    }

    /// Reads `bytes`, the next that arrived: the answer once it is whole, `needMore`, or what is wrong with it.
    public mutating func read(_ bytes: ArraySlice<UInt8>) -> ResponseParse {
        do throws(ResponseFailure) {
            return try take(bytes).map(ResponseParse.response) ?? .needMore
        } catch {
            phase = .failed(error)
            return .failed(error)
        }
    }

    /// Whether the connection can carry another exchange after the answer read: HTTP/1.1, no `Connection: close`, its
    /// body framed by its length or chunks (not read to the close), and nothing after it. False until it is whole.
    public var leavesConnectionOpen: Bool {
        guard case .done = phase, let head, !spent else { return false }
        return head.persists && !head.fields.options("Connection").contains("close")
    }

    /// The connection closed cleanly: the answer when it ends with the close, or why it is cut short.
    public mutating func closed() -> ResponseParse {
        do throws(ResponseFailure) {
            return .response(try end())
        } catch {
            phase = .failed(error)
            return .failed(error)
        }
    }

    private mutating func take(_ bytes: ArraySlice<UInt8>) throws(ResponseFailure) -> HTTPReply? {
        var rest = bytes
        while true {
            switch phase {
            case .done:
                if !rest.isEmpty { spent = true }
                return answer
            case .failed(let failure):
                throw failure
            case _ where rest.isEmpty:
                return nil
            case .head:
                rest = try readHead(rest)
            case .length(let left):
                let taken = rest.prefix(left)
                body += taken
                rest = rest.dropFirst(taken.count)
                phase = left == taken.count ? .done : .length(left: left - taken.count)
            case .chunkSize:
                guard let line = try takeLine(&rest, limit: Self.chunkLineLimit, "a chunk-size line is longer than \(Self.chunkLineLimit) bytes") else {
                    continue
                }
                let size = try chunkSize(line)
                phase = size == 0 ? .trailer(total: 0) : .chunkData(left: size)
            case .chunkData(let left):
                let taken = rest.prefix(left)
                body += taken
                rest = rest.dropFirst(taken.count)
                phase = left == taken.count ? .chunkEnd(seen: 0) : .chunkData(left: left - taken.count)
            case .chunkEnd(let seen):
                guard rest.first == (seen == 0 ? Syntax.cr : Syntax.lf) else { throw Self.refused("a chunk's data is not followed by CR LF") }
                rest = rest.dropFirst()
                phase = seen == 0 ? .chunkEnd(seen: 1) : .chunkSize
            case .trailer(let total):
                let before = rest.count
                let line = try takeLine(&rest, limit: Self.headLimit - total, "its chunked trailer is longer than \(Self.headLimit) bytes")
                let count = total + before - rest.count
                guard let line else {
                    phase = .trailer(total: count)
                    continue
                }
                guard line.last == Syntax.cr, !line.dropLast().contains(Syntax.cr) else {
                    throw Self.refused("a line of its chunked trailer does not end in CR LF")
                }
                // Trailer fields are read and ignored: nothing in a token's answer may depend on them.
                phase = line.count == 1 ? .done : .trailer(total: count)
            case .untilClose:
                guard body.count + rest.count <= bodyLimit else { throw .tooLong(bytes: nil, limit: bodyLimit) }
                body += rest
                rest = []
            }
        }
    }

    /// Moves `rest` up to its first LF into `pending`: the line without its LF once it is whole, nil (all of `rest`
    /// taken) while it is not. Refused with `tooLong` past `limit` bytes, LF included.
    private mutating func takeLine(_ rest: inout ArraySlice<UInt8>, limit: Int, _ tooLong: String) throws(ResponseFailure) -> [UInt8]? {
        let end = rest.firstIndex(of: Syntax.lf)
        pending += rest[..<(end ?? rest.endIndex)]
        rest = end.map { rest[($0 + 1)...] } ?? []
        guard pending.count + (end == nil ? 0 : 1) <= limit else { throw Self.refused(tooLong) }
        guard end != nil else { return nil }
        defer { pending = [] }
        return pending
    }

    private mutating func end() throws(ResponseFailure) -> HTTPReply {
        let cut = "the connection closed before the whole answer"
        switch phase {
        case .done:
            return answer
        case .untilClose:
            phase = .done
            spent = true
            return answer
        case .failed(let failure):
            throw failure
        case .head:
            if headBytes == 0 && pending.isEmpty { throw .cut("the server closed the connection without an answer") }
            throw .cut("\(cut): inside its head, which must end with a blank line")
        case .length(let left):
            throw .cut("\(cut): \(left) bytes of its Content-Length did not come")
        case .chunkSize, .chunkData, .chunkEnd, .trailer:
            throw .cut("\(cut): inside its chunked body, which must end with a zero-size chunk")
        }
    }

    private var answer: HTTPReply {
        HTTPReply(status: head?.status ?? 0, fields: head?.fields ?? [], body: body)
    }

    // MARK: Head

    /// Adds `rest` to the head so far; once the head is whole, reads it and returns the bytes after it.
    private mutating func readHead(_ rest: ArraySlice<UInt8>) throws(ResponseFailure) -> ArraySlice<UInt8> {
        let searchFrom = max(0, pending.count - 3)
        pending += rest
        guard let blank = Self.endOfHead(in: pending, from: searchFrom) else {
            guard headBytes + pending.count <= Self.headLimit else { throw Self.refused("its head is longer than \(Self.headLimit) bytes") }
            return []
        }
        headBytes += blank + 4
        guard headBytes <= Self.headLimit else { throw Self.refused("its head is longer than \(Self.headLimit) bytes") }
        let read = try Self.parseHead(pending[..<(blank + 2)])
        let after = pending[(blank + 4)...]
        pending = []
        try frame(read)
        return after
    }

    /// Where the head's closing CR LF CR LF starts.
    private static func endOfHead(in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var index = start
        while index + 3 < bytes.count {
            if bytes[index] == Syntax.cr, bytes[index + 1] == Syntax.lf, bytes[index + 2] == Syntax.cr, bytes[index + 3] == Syntax.lf {
                return index
            }
            index += 1
        }
        return nil
    }

    /// The status line and fields of `bytes`, each line ending in CR LF.
    private static func parseHead(_ bytes: ArraySlice<UInt8>) throws(ResponseFailure) -> Head {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch bytes[index] {
            case Syntax.cr:
                guard index + 1 < bytes.endIndex, bytes[index + 1] == Syntax.lf else { throw refused("its head holds a CR that is not before an LF") }
                lines.append(bytes[start..<index])
                index += 2
                start = index
            case Syntax.lf:
                throw refused("its head ends a line with a bare LF; HTTP/1.1 lines end in CR LF")
            default:
                index += 1
            }
        }
        let (status, persists) = try statusLine(lines.first ?? [])
        var fields = HTTPFields()
        for line in lines.dropFirst() {
            let read = try field(line)
            fields.append(read.name, read.value)
        }
        return Head(status: status, fields: fields, persists: persists)
    }

    /// `HTTP/1.x NNN reason`: the status code, and whether x is 1 or more.
    private static func statusLine(_ line: ArraySlice<UInt8>) throws(ResponseFailure) -> (status: Int, persists: Bool) {
        let bytes = Array(line)
        let prefix = Array("HTTP/1.".utf8)
        let isDigit = { (byte: UInt8) in (0x30...0x39).contains(byte) }
        guard bytes.count >= 12, Array(bytes[0..<7]) == prefix, isDigit(bytes[7]), bytes[8] == Syntax.space,
              bytes[9...11].allSatisfy(isDigit), bytes.count == 12 || bytes[12] == Syntax.space else {
            throw refused("its first line is not an HTTP/1.x status line: \"\(excerpt(line))\"")
        }
        guard bytes.dropFirst(13).allSatisfy({ $0 == Syntax.tab || $0 >= Syntax.space && $0 != Syntax.delete }) else {
            throw refused("its status line holds a control character")
        }
        let status = bytes[9...11].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard (100...599).contains(status) else { throw refused("its status \(status) is not one HTTP defines (100 to 599)") }
        return (status, bytes[7] != UInt8(ascii: "0"))
    }

    /// `name: value`, refusing what RFC 9112 forbids a recipient to accept.
    private static func field(_ line: ArraySlice<UInt8>) throws(ResponseFailure) -> HTTPFields.Field {
        if line.first == Syntax.space || line.first == Syntax.tab {
            throw refused("its head folds a field onto the next line (obs-fold), which HTTP/1.1 forbids")
        }
        guard let colon = line.firstIndex(of: Syntax.colon), colon > line.startIndex, line[..<colon].allSatisfy(Syntax.isTokenByte) else {
            throw refused("its head has a line that is not a field (name: value): \"\(excerpt(line))\"")
        }
        let value = Syntax.trimmed(line[(colon + 1)...])
        guard value.allSatisfy(Syntax.isValueByte) else {
            throw refused("its field \(String(decoding: line[..<colon], as: UTF8.self)) holds a control character")
        }
        return HTTPFields.Field(name: String(decoding: line[..<colon], as: UTF8.self), value: String(decoding: value, as: UTF8.self))
    }

    /// Decides how the body after `read` is framed, or skips an interim answer.
    private mutating func frame(_ read: Head) throws(ResponseFailure) {
        if read.status == 101 { throw Self.refused("it switches protocols (HTTP 101) when none was asked for") }
        if read.status < 200 {
            phase = .head
            return
        }
        head = read
        let lengths = read.fields.values("Content-Length")
        let encodings = read.fields.values("Transfer-Encoding")
        if bodiless || read.status == 204 || read.status == 304 {
            phase = .done
        } else if !encodings.isEmpty {
            guard lengths.isEmpty else { throw Self.refused("it has both Content-Length and Transfer-Encoding, which hides where it ends") }
            guard encodings.count == 1, encodings[0].asciiLowercased == "chunked" else {
                throw Self.refused("its Transfer-Encoding is \"\(Self.excerpt(read.fields.value("Transfer-Encoding") ?? ""))\"; "
                    + "tokencall reads only chunked, and asks for no compression")
            }
            phase = .chunkSize
        } else if let length = lengths.first {
            guard lengths.count == 1 else { throw Self.refused("it has \(lengths.count) Content-Length fields; one is allowed") }
            let size = try contentLength(length)
            phase = size == 0 ? .done : .length(left: size)
        } else {
            phase = .untilClose
        }
    }

    /// A Content-Length value: digits only, checked against the limit before it is used.
    private func contentLength(_ text: String) throws(ResponseFailure) -> Int {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw Self.refused("its Content-Length \"\(Self.excerpt(text))\" is not a number of bytes")
        }
        guard let size = Int(text) else { throw .tooLong(bytes: nil, limit: bodyLimit) }
        guard size <= bodyLimit else { throw .tooLong(bytes: size, limit: bodyLimit) }
        return size
    }

    /// A chunk-size line without its LF: hex digits, then extensions, which are skipped.
    private func chunkSize(_ line: [UInt8]) throws(ResponseFailure) -> Int {
        guard line.last == Syntax.cr, !line.dropLast().contains(Syntax.cr) else {
            throw Self.refused("a chunk-size line does not end in CR LF")
        }
        var size = 0
        var digits = 0
        for byte in line.dropLast() {
            guard let digit = Syntax.hexValue(byte) else { break }
            let (shifted, overflow) = size.multipliedReportingOverflow(by: 16)
            guard !overflow, shifted + digit <= bodyLimit - body.count else { throw .tooLong(bytes: nil, limit: bodyLimit) }
            size = shifted + digit
            digits += 1
        }
        var after = line.dropLast().dropFirst(digits)
        while let first = after.first, first == Syntax.space || first == Syntax.tab { after = after.dropFirst() }
        guard digits > 0, after.isEmpty || after.first == Syntax.semicolon else {
            throw Self.refused("a chunk size is not hexadecimal: \"\(Self.excerpt(line.dropLast()))\"")
        }
        return size
    }

    private static func refused(_ why: String) -> ResponseFailure { .malformed(why) }

    /// The start of something the server sent, safe to print.
    private static func excerpt(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes.prefix(40), as: UTF8.self).escapedForPrinting
    }

    private static func excerpt(_ text: String) -> String { excerpt(Array(text.utf8)) }
}

