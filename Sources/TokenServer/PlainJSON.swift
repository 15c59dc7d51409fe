import JSON

/// The JSON the token endpoints exchange, read and written without Foundation's coders when it is plain:
/// a flat object of ASCII strings without escapes and small integers. Anything else is left to
/// `JSONValue.parse` and `JSONEncoder`, so the answers are byte for byte the ones they give.
enum PlainJSON {
    // MARK: Writing

    /// Appends `"text"` when no character of it needs escaping; false (and `bytes` unchanged) otherwise.
    static func appendString(_ text: String, to bytes: inout [UInt8]) -> Bool {
        // JSONEncoder escapes control characters, the quote and the backslash; the rest goes as it is.
        // (Bytes from 0x7F up would too, unescaped; they are left to it so that nothing here depends on that.)
        for byte in text.utf8 {
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") else { return false }
        }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: text.utf8)
        bytes.append(UInt8(ascii: "\""))
        return true
    }

    /// Appends a whole number in decimal, as JSONEncoder and string interpolation write it.
    static func appendDecimal(_ number: some BinaryInteger, to bytes: inout [UInt8]) {
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        bytes[start...].reverse()
    }

    // MARK: Reading

    /// The members of `body` when it is a plain object: optional whitespace, `{`, members whose keys are plain
    /// strings and whose values are plain strings or integers of up to 18 digits (no fraction, no exponent,
    /// no leading zero, no `-0`), each key once, `}`, optional whitespace. nil means "not plain": the caller
    /// asks `JSONValue.parse`, which decides what it is (it may well be valid JSON).
    static func plainObject(_ body: [UInt8]) -> [String: JSONValue]? {
        body.withUnsafeBufferPointer { bytes -> [String: JSONValue]? in
            var reader = Reader(bytes: bytes)
            reader.skipWhitespace()
            guard reader.take(UInt8(ascii: "{")) else { return nil }
            var members: [String: JSONValue] = [:]
            reader.skipWhitespace()
            if !reader.take(UInt8(ascii: "}")) {
                while true {
                    reader.skipWhitespace()
                    guard let key = reader.plainString() else { return nil }
                    reader.skipWhitespace()
                    guard reader.take(UInt8(ascii: ":")) else { return nil }
                    reader.skipWhitespace()
                    let value: JSONValue
                    if let text = reader.plainString() {
                        value = .string(text)
                    } else if let number = reader.plainInteger() {
                        value = .integer(number)
                    } else {
                        return nil
                    }
                    // JSONDecoder keeps the first of a repeated key; leave that case to it.
                    guard members.updateValue(value, forKey: key) == nil else { return nil }
                    reader.skipWhitespace()
                    if reader.take(UInt8(ascii: "}")) { break }
                    guard reader.take(UInt8(ascii: ",")) else { return nil }
                }
            }
            reader.skipWhitespace()
            return reader.atEnd ? members : nil
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var atEnd: Bool { index == bytes.count }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// A string of printable ASCII without escapes.
        mutating func plainString() -> String? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            let start = index + 1
            var end = start
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "\"") { break }
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
                end += 1
            }
            guard end < bytes.count else { return nil }
            index = end + 1
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }

        /// -?(0|[1-9][0-9]{0,17}) followed by something that cannot continue a number.
        mutating func plainInteger() -> Int64? {
            var position = index
            let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
            if negative { position += 1 }
            let digitsStart = position
            var magnitude: Int64 = 0
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
                magnitude = magnitude * 10 + Int64(bytes[position] - UInt8(ascii: "0"))
                position += 1
                if position - digitsStart > 18 { return nil }
            }
            let digits = position - digitsStart
            guard digits > 0, digits == 1 || bytes[digitsStart] != UInt8(ascii: "0") else { return nil }
            if negative, magnitude == 0 { return nil }
            if position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
                default: break
                }
            }
            index = position
            return negative ? -magnitude : magnitude
        }
    }
}
