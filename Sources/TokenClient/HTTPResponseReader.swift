import PrintableText

/// One HTTP/1.x answer read strictly (RFC 9112) from bytes as they arrive: interim 1xx heads skipped, the body framed
/// by Content-Length, chunked coding or the close, and counted against `bodyLimit` before it is kept. No Foundation, no
/// I/O: the socket transport feeds it, and so does the `httpresponse` fuzz target.
struct HTTPResponseReader {
    /// The most bytes the heads (interim ones included), or a chunked body's trailer section, may take.
    static let headLimit = 16 * 1024
    /// The most bytes a chunk-size line may take, extensions included.
    static let chunkLineLimit = 1024

    /// One header field as it arrived, its value without the whitespace around it.
    struct Field: Equatable, Sendable {
        let name: String
        let value: String
    }

    /// A final answer's status and fields.
    struct Head: Equatable, Sendable {
        let status: Int
        let fields: [Field]

        /// The values of every field named `name` (any case), joined by ", " as RFC 9110 combines them.
        func value(_ name: String) -> String? {
            let values = fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
            return values.isEmpty ? nil : values.joined(separator: ", ")
        }
    }

    struct Answer: Equatable, Sendable {
        let head: Head
        let body: [UInt8]
    }

    private enum Phase {
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

    init(bodyLimit: Int, method: String) {
        self.bodyLimit = bodyLimit
        bodiless = method == "HEAD"
    }

    /// Reads `bytes`, the next that arrived: the answer once it is whole (bytes after it are ignored), nil while more
    /// are needed, or the refusal saying what is wrong with it.
    mutating func read(_ bytes: ArraySlice<UInt8>) throws(TokenClientError) -> Answer? {
        var rest = bytes
        while true {
            switch phase {
            case .done:
                return answer
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
                guard rest.first == (seen == 0 ? carriageReturn : lineFeed) else { throw Self.refused("a chunk's data is not followed by CR LF") }
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
                guard line.last == carriageReturn, !line.dropLast().contains(carriageReturn) else {
                    throw Self.refused("a line of its chunked trailer does not end in CR LF")
                }
                // Trailer fields are read and ignored: nothing in a token's answer may depend on them.
                phase = line.count == 1 ? .done : .trailer(total: count)
            case .untilClose:
                guard body.count + rest.count <= bodyLimit else { throw .answerTooLong(bytes: nil, limit: bodyLimit) }
                body += rest
                rest = []
            }
        }
    }

    /// Moves `rest` up to its first LF into `pending`: the line without its LF once it is whole, nil (all of `rest`
    /// taken) while it is not. Refused with `tooLong` past `limit` bytes, LF included.
    private mutating func takeLine(_ rest: inout ArraySlice<UInt8>, limit: Int, _ tooLong: String) throws(TokenClientError) -> [UInt8]? {
        let end = rest.firstIndex(of: lineFeed)
        pending += rest[..<(end ?? rest.endIndex)]
        rest = end.map { rest[($0 + 1)...] } ?? []
        guard pending.count + (end == nil ? 0 : 1) <= limit else { throw Self.refused(tooLong) }
        guard end != nil else { return nil }
        defer { pending = [] }
        return pending
    }

    /// The connection closed cleanly: the answer when it ends with the close, or why it is cut short.
    mutating func closed() throws(TokenClientError) -> Answer {
        let cut = "the connection closed before the whole answer"
        switch phase {
        case .done, .untilClose:
            phase = .done
            return answer
        case .head:
            if headBytes == 0 && pending.isEmpty { throw .transport("the server closed the connection without an answer") }
            throw .transport("\(cut): inside its head, which must end with a blank line")
        case .length(let left):
            throw .transport("\(cut): \(left) bytes of its Content-Length did not come")
        case .chunkSize, .chunkData, .chunkEnd, .trailer:
            throw .transport("\(cut): inside its chunked body, which must end with a zero-size chunk")
        }
    }

    private var answer: Answer {
        Answer(head: head ?? Head(status: 0, fields: []), body: body)
    }

    // MARK: Head

    /// Adds `rest` to the head so far; once the head is whole, reads it and returns the bytes after it.
    private mutating func readHead(_ rest: ArraySlice<UInt8>) throws(TokenClientError) -> ArraySlice<UInt8> {
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
            if bytes[index] == carriageReturn, bytes[index + 1] == lineFeed, bytes[index + 2] == carriageReturn, bytes[index + 3] == lineFeed {
                return index
            }
            index += 1
        }
        return nil
    }

    /// The status line and fields of `bytes`, each line ending in CR LF.
    private static func parseHead(_ bytes: ArraySlice<UInt8>) throws(TokenClientError) -> Head {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch bytes[index] {
            case carriageReturn:
                guard index + 1 < bytes.endIndex, bytes[index + 1] == lineFeed else { throw refused("its head holds a CR that is not before an LF") }
                lines.append(bytes[start..<index])
                index += 2
                start = index
            case lineFeed:
                throw refused("its head ends a line with a bare LF; HTTP/1.1 lines end in CR LF")
            default:
                index += 1
            }
        }
        let status = try statusCode(lines.first ?? [])
        var fields: [Field] = []
        for line in lines.dropFirst() {
            fields.append(try field(line))
        }
        return Head(status: status, fields: fields)
    }

    /// `HTTP/1.x NNN reason`: the status code.
    private static func statusCode(_ line: ArraySlice<UInt8>) throws(TokenClientError) -> Int {
        let bytes = Array(line)
        let prefix = Array("HTTP/1.".utf8)
        let isDigit = { (byte: UInt8) in (0x30...0x39).contains(byte) }
        guard bytes.count >= 12, Array(bytes[0..<7]) == prefix, isDigit(bytes[7]), bytes[8] == space,
              bytes[9...11].allSatisfy(isDigit), bytes.count == 12 || bytes[12] == space else {
            throw refused("its first line is not an HTTP/1.x status line: \"\(excerpt(line))\"")
        }
        guard bytes.dropFirst(13).allSatisfy({ $0 == tab || $0 >= space && $0 != delete }) else {
            throw refused("its status line holds a control character")
        }
        let status = bytes[9...11].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard (100...599).contains(status) else { throw refused("its status \(status) is not one HTTP defines (100 to 599)") }
        return status
    }

    /// `name: value`, refusing what RFC 9112 forbids a recipient to accept.
    private static func field(_ line: ArraySlice<UInt8>) throws(TokenClientError) -> Field {
        if line.first == space || line.first == tab {
            throw refused("its head folds a field onto the next line (obs-fold), which HTTP/1.1 forbids")
        }
        guard let colon = line.firstIndex(of: colonByte), colon > line.startIndex, line[..<colon].allSatisfy(isTokenByte) else {
            throw refused("its head has a line that is not a field (name: value): \"\(excerpt(line))\"")
        }
        var value = line[(colon + 1)...]
        while let first = value.first, first == space || first == tab { value = value.dropFirst() }
        while let last = value.last, last == space || last == tab { value = value.dropLast() }
        guard value.allSatisfy({ $0 == tab || $0 >= space && $0 != delete }) else {
            throw refused("its field \(String(decoding: line[..<colon], as: UTF8.self)) holds a control character")
        }
        return Field(name: String(decoding: line[..<colon], as: UTF8.self), value: String(decoding: value, as: UTF8.self))
    }

    /// Decides how the body after `read` is framed, or skips an interim answer.
    private mutating func frame(_ read: Head) throws(TokenClientError) {
        if read.status == 101 { throw Self.refused("it switches protocols (HTTP 101) when none was asked for") }
        if read.status < 200 {
            phase = .head
            return
        }
        head = read
        let lengths = read.fields.filter { $0.name.lowercased() == "content-length" }
        let encodings = read.fields.filter { $0.name.lowercased() == "transfer-encoding" }
        if bodiless || read.status == 204 || read.status == 304 {
            phase = .done
        } else if !encodings.isEmpty {
            guard lengths.isEmpty else { throw Self.refused("it has both Content-Length and Transfer-Encoding, which hides where it ends") }
            guard encodings.count == 1, encodings[0].value.lowercased() == "chunked" else {
                throw Self.refused("its Transfer-Encoding is \"\(Self.excerpt(read.value("transfer-encoding") ?? ""))\"; "
                    + "tokencall reads only chunked, and asks for no compression")
            }
            phase = .chunkSize
        } else if let length = lengths.first {
            guard lengths.count == 1 else { throw Self.refused("it has \(lengths.count) Content-Length fields; one is allowed") }
            let size = try contentLength(length.value)
            phase = size == 0 ? .done : .length(left: size)
        } else {
            phase = .untilClose
        }
    }

    /// A Content-Length value: digits only, checked against the limit before it is used.
    private func contentLength(_ text: String) throws(TokenClientError) -> Int {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw Self.refused("its Content-Length \"\(Self.excerpt(text))\" is not a number of bytes")
        }
        guard let size = Int(text) else { throw .answerTooLong(bytes: nil, limit: bodyLimit) }
        guard size <= bodyLimit else { throw .answerTooLong(bytes: size, limit: bodyLimit) }
        return size
    }

    /// A chunk-size line without its LF: hex digits, then extensions, which are skipped.
    private func chunkSize(_ line: [UInt8]) throws(TokenClientError) -> Int {
        guard line.last == carriageReturn, !line.dropLast().contains(carriageReturn) else {
            throw Self.refused("a chunk-size line does not end in CR LF")
        }
        var size = 0
        var digits = 0
        for byte in line.dropLast() {
            guard let digit = Self.hexValue(byte) else { break }
            let (shifted, overflow) = size.multipliedReportingOverflow(by: 16)
            guard !overflow, shifted + digit <= bodyLimit - body.count else { throw .answerTooLong(bytes: nil, limit: bodyLimit) }
            size = shifted + digit
            digits += 1
        }
        var after = line.dropLast().dropFirst(digits)
        while let first = after.first, first == space || first == tab { after = after.dropFirst() }
        guard digits > 0, after.isEmpty || after.first == semicolon else {
            throw Self.refused("a chunk size is not hexadecimal: \"\(Self.excerpt(line.dropLast()))\"")
        }
        return size
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: Int(byte - 0x30)
        case 0x41...0x46: Int(byte - 0x41 + 10)
        case 0x61...0x66: Int(byte - 0x61 + 10)
        default: nil
        }
    }

    /// A token character (RFC 9110 `tchar`), what field names are made of.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    private static func refused(_ why: String) -> TokenClientError {
        .invalidResponse("it is not HTTP/1.1 as tokencall reads it: \(why)")
    }

    /// The start of something the server sent, safe to print.
    private static func excerpt(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes.prefix(40), as: UTF8.self).escapedForPrinting
    }

    private static func excerpt(_ text: String) -> String { excerpt(Array(text.utf8)) }
}

private let carriageReturn = UInt8(ascii: "\r")
private let lineFeed = UInt8(ascii: "\n")
private let space = UInt8(ascii: " ")
private let tab = UInt8(ascii: "\t")
private let colonByte = UInt8(ascii: ":")
private let semicolon = UInt8(ascii: ";")
private let delete: UInt8 = 0x7F
