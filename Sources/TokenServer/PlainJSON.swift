/// The JSON the token endpoints answer with, written without Foundation's coders when it is plain: ASCII strings
/// without escapes and whole numbers. Anything else is left to `JSONEncoder`, so the answers are byte for byte
/// the ones it gives.
enum PlainJSON {
    /// Appends `"text"` when no character of it needs escaping; false (and `bytes` unchanged) otherwise.
    static func appendString(_ text: String, to bytes: inout [UInt8]) -> Bool {
        // JSONEncoder escapes control characters, the quote and the backslash; the rest goes as it is.
        // (Bytes from 0x7F up would too, unescaped; they are left to it so that nothing here depends on that.)
        var text = text
        return text.withUTF8 { utf8 in
            for byte in utf8 {
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") else { return false }
            }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return true
        }
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
}
