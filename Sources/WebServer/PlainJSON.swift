/// The JSON the token endpoints answer with, written without Foundation's coders when it is plain: ASCII strings
/// without escapes and whole numbers. Anything else is left to `JSONEncoder`, so the answers are byte for byte
/// the ones it gives.
package enum PlainJSON {
    /// Appends `"text"` when no character of it needs escaping; false (and `bytes` unchanged) otherwise.
    package static func appendString(_ text: String, to bytes: inout [UInt8]) -> Bool {
        // JSONEncoder escapes control characters, the quote and the backslash; the rest goes as it is.
        // (Bytes from 0x7F up would too, unescaped; they are left to it so that nothing here depends on that.)
        var text = text
        return text.withUTF8 { utf8 in
            guard isPlain(utf8) else { return false }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return true
        }
    }

    /// Whether every byte is from 0x20 to 0x7E and neither `"` nor `\`: eight bytes at a time (the classic "has a byte
    /// less than", "more than" and "equal to" tests on a word, exact about whether any byte is), then one at a time.
    package static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
        var index = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let below = (word &- ones &* 0x20) & ~word & highs
                let above = ((word &+ ones) | word) & highs
                if below | above != 0 || hasZero(word ^ (ones &* 0x22)) || hasZero(word ^ (ones &* 0x5C)) { return false }
                index += 8
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") else { return false }
            index += 1
        }
        return true
    }

    /// Appends a whole number in decimal, as JSONEncoder and string interpolation write it.
    package static func appendDecimal(_ number: some BinaryInteger, to bytes: inout [UInt8]) {
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
