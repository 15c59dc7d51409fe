/// Why what a server sent is not RESP the reader takes, in words.
public struct RESPError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
}

/// Reads RESP2 values as bytes arrive, strictly and within limits that hold before anything is kept: a line (a
/// simple string, an error, a number) of at most `maxLineBytes`, a bulk string of at most `maxBulkBytes`, an array of
/// at most `maxElements`, nesting at most `maxDepth`, and a whole value of at most `maxValueBytes`. No
/// I/O, so `Fuzz/RESPFuzzer.swift` feeds it anything.
public struct RESPReader: Sendable {
    public struct Limits: Sendable {
        public var maxLineBytes = 4096
        public var maxBulkBytes = 64 * 1024
        public var maxElements = 1024
        public var maxDepth = 4
        public var maxValueBytes = 1 << 20
        public init() {}
    }

    public let limits: Limits
    private var buffer: [UInt8] = []
    private var start = 0

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Bytes received and not yet read into a value.
    public var pending: Int { buffer.count - start }

    public mutating func append(_ bytes: some Collection<UInt8>) {
        if start > 0, start == buffer.count { buffer.removeAll(keepingCapacity: true); start = 0 }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole value, nil until more bytes arrive; an error when the bytes cannot be RESP within the limits
    /// (after which the connection is no use: nothing more should be read from it).
    public mutating func next() throws(RESPError) -> RESPValue? {
        var cursor = start
        guard let value = try value(at: &cursor, depth: 0) else {
            if pending > limits.maxValueBytes { throw RESPError(description: "over \(limits.maxValueBytes) bytes without a whole value") }
            return nil
        }
        guard cursor - start <= limits.maxValueBytes else {
            throw RESPError(description: "a value of \(cursor - start) bytes, over \(limits.maxValueBytes)")
        }
        start = cursor
        if start > 64 * 1024, start * 2 > buffer.count { buffer.removeFirst(start); start = 0 }
        return value
    }

    private func value(at cursor: inout Int, depth: Int) throws(RESPError) -> RESPValue? {
        guard cursor < buffer.count else { return nil }
        let kind = buffer[cursor]
        var at = cursor + 1
        guard let line = try line(at: &at) else { return nil }
        switch kind {
        case UInt8(ascii: "+"):
            cursor = at
            return .simple(try text(line))
        case UInt8(ascii: "-"):
            cursor = at
            return .error(try text(line))
        case UInt8(ascii: ":"):
            cursor = at
            return .integer(try integer(line))
        case UInt8(ascii: "$"):
            let length = try integer(line)
            if length == -1 { cursor = at; return .bulk(nil) }
            guard length >= 0 else { throw RESPError(description: "a bulk string of length \(length)") }
            guard length <= limits.maxBulkBytes else {
                throw RESPError(description: "a bulk string of \(length) bytes, over \(limits.maxBulkBytes)")
            }
            let count = Int(length)
            guard buffer.count - at >= count + 2 else { return nil }
            guard buffer[at + count] == 13, buffer[at + count + 1] == 10 else {
                throw RESPError(description: "a bulk string not ended by CRLF after its \(count) bytes")
            }
            cursor = at + count + 2
            return .bulk(Array(buffer[at..<(at + count)]))
        case UInt8(ascii: "*"):
            let count = try integer(line)
            if count == -1 { cursor = at; return .array(nil) }
            guard count >= 0 else { throw RESPError(description: "an array of length \(count)") }
            guard count <= limits.maxElements else { throw RESPError(description: "an array of \(count) values, over \(limits.maxElements)") }
            guard depth < limits.maxDepth else { throw RESPError(description: "arrays nested deeper than \(limits.maxDepth)") }
            var elements: [RESPValue] = []
            for _ in 0..<count {
                guard let element = try value(at: &at, depth: depth + 1) else { return nil }
                elements.append(element)
            }
            cursor = at
            return .array(elements)
        default:
            throw RESPError(description: "a value starting with byte 0x\(String(kind, radix: 16)), not one of + - : $ *")
        }
    }

    /// The bytes up to the next CRLF, moving past it; nil while it has not arrived.
    private func line(at cursor: inout Int) throws(RESPError) -> ArraySlice<UInt8>? {
        var index = cursor
        while index < buffer.count {
            if buffer[index] == 10 {
                guard index > cursor, buffer[index - 1] == 13 else { throw RESPError(description: "a line ended by LF without CR") }
                let line = buffer[cursor..<(index - 1)]
                cursor = index + 1
                return line
            }
            guard index - cursor < limits.maxLineBytes else { throw RESPError(description: "a line over \(limits.maxLineBytes) bytes") }
            index += 1
        }
        return nil
    }

    private func text(_ line: ArraySlice<UInt8>) throws(RESPError) -> String {
        guard !line.contains(13) else { throw RESPError(description: "a CR inside a line") }
        return String(decoding: line, as: UTF8.self)
    }

    private func integer(_ line: ArraySlice<UInt8>) throws(RESPError) -> Int64 {
        var digits = line[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.count <= 19, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            throw RESPError(description: "\(String(decoding: line.prefix(24), as: UTF8.self).debugDescription) is not an integer")
        }
        var value: Int64 = 0
        for digit in digits {
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int64(digit - 48))
            guard !o1, !o2 else { throw RESPError(description: "an integer past 64 bits") }
            value = sum
        }
        return negative ? -value : value
    }
}
