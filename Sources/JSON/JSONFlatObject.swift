/// An object whose members are plain strings and whole numbers, read in one pass without building a dictionary: what
/// a token request's body is. Its keys and strings are ASCII without escapes, its numbers up to 18 digits without a
/// sign, fraction or exponent, at most `maximumMembers` of them and no key twice. Anything else (which may well be
/// valid JSON) is nil, not an error: the full parser reads those bytes, and says what is wrong with them. When it is
/// not nil, it holds exactly the members `JSONValue.decode` finds.
public struct JSONFlatObject: Sendable {
    public struct Member: Sendable, Equatable {
        public let name: String
        public let value: JSONValue
    }

    public static let maximumMembers = 8

    public private(set) var members: [Member] = []

    /// The value of the member named `name`.
    public subscript(name: String) -> JSONValue? {
        for member in members where member.name == name { return member.value }
        return nil
    }

    public static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> JSONFlatObject? {
        var reader = Reader(bytes: bytes)
        return reader.object()
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        mutating func object() -> JSONFlatObject? {
            skipWhitespace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var object = JSONFlatObject()
            skipWhitespace()
            if !take(UInt8(ascii: "}")) {
                object.members.reserveCapacity(4)
                while true {
                    skipWhitespace()
                    guard let name = string() else { return nil }
                    skipWhitespace()
                    guard take(UInt8(ascii: ":")) else { return nil }
                    skipWhitespace()
                    let value: JSONValue
                    if let text = string() {
                        value = .string(text)
                    } else if let number = integer() {
                        value = .integer(number)
                    } else {
                        return nil
                    }
                    guard object.members.count < maximumMembers, !object.members.contains(where: { $0.name == name }) else { return nil }
                    object.members.append(Member(name: name, value: value))
                    skipWhitespace()
                    if take(UInt8(ascii: "}")) { break }
                    guard take(UInt8(ascii: ",")) else { return nil }
                }
            }
            skipWhitespace()
            return index == bytes.count ? object : nil
        }

        /// `"..."` of ASCII without a backslash or a control character.
        mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)]), as: UTF8.self)
                }
                guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
                index += 1
            }
            return nil
        }

        /// Digits without a sign, a leading zero, a fraction or an exponent, at most 18 of them (so it fits an `Int64`).
        mutating func integer() -> Int64? {
            let start = index
            var value: Int64 = 0
            while index < bytes.count, case let digit = bytes[index] &- UInt8(ascii: "0"), digit < 10 {
                value = value &* 10 &+ Int64(digit)  // past 18 digits it may wrap, and is refused below
                index += 1
            }
            let count = index - start
            guard count > 0, count <= 18, count == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] | 0x20 == UInt8(ascii: "e") { return nil }
            return value
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }
    }
}
