/// The byte classes and helpers both directions share.
enum Syntax {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let colon = UInt8(ascii: ":")
    static let semicolon = UInt8(ascii: ";")
    static let delete: UInt8 = 0x7F

    /// RFC 9110's tchar: what methods and field names are made of.
    static func isTokenByte(_ byte: UInt8) -> Bool { tokenBytes.contains(byte) }
    private static let tokenBytes = ASCIISet(alphanumericAnd: "!#$%&'*+-.^_`|~")

    /// Whether `text` is a token: a method or a field name.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }

    /// RFC 3986's unreserved, sub-delims, ":", "@", "/" and "?": what a path and query are made of, besides %-escapes.
    static func isTargetByte(_ byte: UInt8) -> Bool { targetBytes.contains(byte) }
    private static let targetBytes = ASCIISet(alphanumericAnd: "-._~!$&'()*+,;=:@/?")

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || isDigit(byte)
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: Int(byte - 0x30)
        case 0x41...0x46: Int(byte - 0x41 + 10)
        case 0x61...0x66: Int(byte - 0x61 + 10)
        default: nil
        }
    }

    static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// A field value's bytes: visible characters, spaces and tabs (and bytes of UTF-8 beyond ASCII).
    static func isValueByte(_ byte: UInt8) -> Bool { byte == tab || (byte >= space && byte != delete) }

    /// Without the spaces and tabs at either end.
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var value = bytes
        while let first = value.first, first == space || first == tab { value = value.dropFirst() }
        while let last = value.last, last == space || last == tab { value = value.dropLast() }
        return value
    }

    static func trimmed(_ text: Substring) -> Substring {
        var value = text
        while let first = value.first, first == " " || first == "\t" { value = value.dropFirst() }
        while let last = value.last, last == " " || last == "\t" { value = value.dropLast() }
        return value
    }

    /// A byte as a person can read it in an error: `"{"` for a visible one, `byte 0x0A` otherwise.
    static func describe(_ byte: UInt8) -> String {
        byte > 0x20 && byte < 0x7F ? "\"\(Character(UnicodeScalar(byte)))\"" : "byte 0x" + twoHexDigits(byte)
    }

    static func twoHexDigits(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}

/// A set of ASCII bytes as two bit masks: a lookup per byte instead of a scan of the characters.
struct ASCIISet: Sendable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    /// Letters, digits and the characters of `others`.
    init(alphanumericAnd others: String) {
        for byte in UInt8(0)..<128 where Syntax.isAlphanumeric(byte) || others.utf8.contains(byte) {
            if byte < 64 { low |= 1 << byte } else { high |= 1 << (byte - 64) }
        }
    }

    func contains(_ byte: UInt8) -> Bool {
        byte < 64 ? low & (1 << byte) != 0 : byte < 128 && high & (1 << (byte - 64)) != 0
    }
}
