/// A strict RFC 8259 reader: one value, UTF-8 without a byte-order mark, no trailing commas, no repeated keys,
/// no lone surrogates, nesting at most `maximumDepth` deep. Whole numbers that fit an `Int64` are read as
/// integers with checked arithmetic; every other number is kept as written.
struct JSONParser {
    static let maximumDepth = 64

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            throw JSONError(offset: 0, problem: "a byte-order mark (send UTF-8 without one)")
        }
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        if parser.peek == nil { throw JSONError(offset: 0, problem: bytes.isEmpty ? "no JSON at all" : "only whitespace") }
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.peek == nil else { throw parser.error("more after the value") }
        return value
    }

    // MARK: Values

    private mutating func value() throws(JSONError) -> JSONValue {
        guard let byte = peek else { throw error("the text ends where a value should be") }
        switch byte {
        case Byte.openBrace: return try object()
        case Byte.openBracket: return try array()
        case Byte.quote: return .string(try string())
        case Byte.minus, Byte.zero...Byte.nine: return try number()
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: throw error("\(Self.name(byte)) where a value should be")
        }
    }

    private mutating func object() throws(JSONError) -> JSONValue {
        try enter()
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if !take(Byte.closeBrace) {
            members.reserveCapacity(4)  // grown from empty, a three-member body was allocated twice and rehashed once
            while true {
                skipWhitespace()
                guard peek == Byte.quote else {
                    throw error(peek == Byte.closeBrace && !members.isEmpty ? "a trailing comma" : "no key in quotes")
                }
                let keyOffset = index
                let key = try string()
                skipWhitespace()
                guard take(Byte.colon) else { throw error("no ':' after a key") }
                skipWhitespace()
                guard members.updateValue(try value(), forKey: key) == nil else {
                    throw JSONError(offset: keyOffset, problem: "a key given twice")
                }
                skipWhitespace()
                if take(Byte.closeBrace) { break }
                guard take(Byte.comma) else { throw error("no ',' or '}' after a member") }
            }
        }
        depth -= 1
        return .object(members)
    }

    private mutating func array() throws(JSONError) -> JSONValue {
        try enter()
        var elements: [JSONValue] = []
        skipWhitespace()
        if !take(Byte.closeBracket) {
            while true {
                skipWhitespace()
                if peek == Byte.closeBracket { throw error("a trailing comma") }
                elements.append(try value())
                skipWhitespace()
                if take(Byte.closeBracket) { break }
                guard take(Byte.comma) else { throw error("no ',' or ']' after an element") }
            }
        }
        depth -= 1
        return .array(elements)
    }

    private mutating func enter() throws(JSONError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
        index += 1
    }

    private mutating func literal(_ word: StaticString) throws(JSONError) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count - index >= expected.count,
              UnsafeBufferPointer(rebasing: bytes[index..<index + expected.count]).elementsEqual(expected) else {
            throw error("a word that is not true, false or null")
        }
        index += expected.count
    }

    // MARK: Numbers

    private mutating func number() throws(JSONError) -> JSONValue {
        let start = index
        let negative = take(Byte.minus)
        let digitsStart = index
        guard let first = peek, Self.isDigit(first) else { throw error("a number without digits") }
        index += 1
        if first == Byte.zero, let next = peek, Self.isDigit(next) { throw error("a number with a leading zero") }
        skipDigits()
        let digits = UnsafeBufferPointer(rebasing: bytes[digitsStart..<index])
        var whole = true
        if take(UInt8(ascii: ".")) {
            whole = false
            guard let next = peek, Self.isDigit(next) else { throw error("a '.' without digits after it") }
            skipDigits()
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            whole = false
            index += 1
            if !take(UInt8(ascii: "+")) { _ = take(Byte.minus) }
            guard let next = peek, Self.isDigit(next) else { throw error("an exponent without digits") }
            skipDigits()
        }
        if whole, let value = Self.int64(digits, negative: negative), !(negative && value == 0) {
            return .integer(value)
        }
        return .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
    }

    /// The value of up to 19 decimal digits with a sign, when it fits an `Int64`.
    private static func int64(_ digits: UnsafeBufferPointer<UInt8>, negative: Bool) -> Int64? {
        guard digits.count <= 19 else { return nil }
        var magnitude: UInt64 = 0
        for digit in digits { magnitude = magnitude * 10 + UInt64(digit - Byte.zero) }
        let limit = negative ? Int64.min.magnitude : Int64.max.magnitude
        guard magnitude <= limit else { return nil }
        return negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(magnitude)
    }

    private mutating func skipDigits() {
        while let byte = peek, Self.isDigit(byte) { index += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (Byte.zero...Byte.nine).contains(byte) }

    // MARK: Strings

    private mutating func string() throws(JSONError) -> String {
        let opening = index
        index += 1
        let start = index
        var ascii = true
        while let byte = peek {
            switch byte {
            case Byte.quote:
                let content = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if ascii { return String(decoding: content, as: UTF8.self) }
                guard let text = String(validating: content, as: UTF8.self) else {
                    throw JSONError(offset: opening, problem: "a string that is not valid UTF-8")
                }
                return text
            case Byte.backslash:
                return try escapedString(opening: opening, start: start)
            case ..<0x20:
                throw error("a control character in a string (write it as an escape)")
            case 0x80...:
                ascii = false
                index += 1
            default:
                index += 1
            }
        }
        throw JSONError(offset: opening, problem: "a string without its closing quote")
    }

    /// The rest of a string that holds an escape, from its first backslash on.
    private mutating func escapedString(opening: Int, start: Int) throws(JSONError) -> String {
        var content = Array(bytes[start..<index])
        while let byte = peek {
            switch byte {
            case Byte.quote:
                index += 1
                guard let text = String(validating: content, as: UTF8.self) else {
                    throw JSONError(offset: opening, problem: "a string that is not valid UTF-8")
                }
                return text
            case Byte.backslash:
                index += 1
                try unescape(into: &content)
            case ..<0x20:
                throw error("a control character in a string (write it as an escape)")
            default:
                content.append(byte)
                index += 1
            }
        }
        throw JSONError(offset: opening, problem: "a string without its closing quote")
    }

    private mutating func unescape(into content: inout [UInt8]) throws(JSONError) {
        let escapeOffset = index - 1
        guard let byte = peek else { throw error("a string without its closing quote") }
        index += 1
        let simple: UInt8? = switch byte {
        case Byte.quote, Byte.backslash, UInt8(ascii: "/"): byte
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
        if let simple { content.append(simple); return }
        guard byte == UInt8(ascii: "u") else {
            throw JSONError(offset: escapeOffset, problem: "an escape that JSON does not have")
        }
        var scalarValue = try hexQuad()
        if (0xD800...0xDBFF).contains(scalarValue) {
            guard take(Byte.backslash), take(UInt8(ascii: "u")) else {
                throw JSONError(offset: escapeOffset, problem: "a high surrogate without its low half")
            }
            let low = try hexQuad()
            guard (0xDC00...0xDFFF).contains(low) else {
                throw JSONError(offset: escapeOffset, problem: "a high surrogate without its low half")
            }
            scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(scalarValue) else {
            throw JSONError(offset: escapeOffset, problem: "a low surrogate without its high half")
        }
        content.append(contentsOf: String(scalar).utf8)
    }

    private mutating func hexQuad() throws(JSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek, let digit = Self.hexValue(byte) else { throw error("\\u without four hex digits") }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case Byte.zero...Byte.nine: byte - Byte.zero
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    // MARK: Bytes

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private func error(_ problem: String) -> JSONError {
        JSONError(offset: index, problem: peek == nil ? "the text ends early" : problem)
    }

    /// A byte as a reader would name it: `'x'` when printable ASCII, else its value.
    private static func name(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private enum Byte {
        static let quote = UInt8(ascii: "\"")
        static let backslash = UInt8(ascii: "\\")
        static let openBrace = UInt8(ascii: "{")
        static let closeBrace = UInt8(ascii: "}")
        static let openBracket = UInt8(ascii: "[")
        static let closeBracket = UInt8(ascii: "]")
        static let colon = UInt8(ascii: ":")
        static let comma = UInt8(ascii: ",")
        static let minus = UInt8(ascii: "-")
        static let zero = UInt8(ascii: "0")
        static let nine = UInt8(ascii: "9")
    }
}
