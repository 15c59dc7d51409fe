/// Standard base64 (RFC 4648 §4, `+/` and `=` padding), strict on decode.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    /// Each byte's 6-bit value, or 0xFF for a byte outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = UInt8(index) }
        return table
    }()

    static func encode(_ input: [UInt8]) -> String {
        let length = (input.count + 2) / 3 * 4
        return alphabet.withUnsafeBufferPointer { table in
            input.withUnsafeBufferPointer { bytes in
                String(unsafeUninitializedCapacity: length) { out in
                    var i = 0, o = 0
                    while i + 3 <= bytes.count {
                        let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                        out[o] = table[Int(n >> 18 & 63)]
                        out[o + 1] = table[Int(n >> 12 & 63)]
                        out[o + 2] = table[Int(n >> 6 & 63)]
                        out[o + 3] = table[Int(n & 63)]
                        i += 3
                        o += 4
                    }
                    let rest = bytes.count - i
                    if rest > 0 {
                        let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
                        out[o] = table[Int(n >> 18 & 63)]
                        out[o + 1] = table[Int(n >> 12 & 63)]
                        out[o + 2] = rest == 2 ? table[Int(n >> 6 & 63)] : UInt8(ascii: "=")
                        out[o + 3] = UInt8(ascii: "=")
                        o += 4
                    }
                    return o
                }
            }
        }
    }

    /// The decoded bytes, or nil when the text is not canonical padded base64.
    static func decode(_ text: Substring.UTF8View) -> [UInt8]? {
        if let decoded = text.withContiguousStorageIfAvailable(decode(bytes:)) { return decoded }
        return Array(text).withUnsafeBufferPointer(decode(bytes:))
    }

    private static func decode(bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let count = bytes.count
        guard count % 4 == 0 else { return nil }
        guard count > 0 else { return [] }
        let padding = bytes[count - 1] != UInt8(ascii: "=") ? 0 : bytes[count - 2] != UInt8(ascii: "=") ? 1 : 2
        var valid = true
        let decoded = values.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: count / 4 * 3) { out, written in
                var i = 0, o = 0
                while i < count {
                    let last = i + 4 == count
                    let a = table[Int(bytes[i])], b = table[Int(bytes[i + 1])]
                    let c = last && padding == 2 ? 0 : table[Int(bytes[i + 2])]
                    let d = last && padding >= 1 ? 0 : table[Int(bytes[i + 3])]
                    // Outside the alphabet, or (canonical form) bits a padded group leaves over that are not zero.
                    let spare = !last ? 0 : padding == 1 ? c & 0x03 : padding == 2 ? b & 0x0F : 0
                    guard (a | b | c | d) & 0xC0 == 0, spare == 0 else {
                        valid = false
                        break
                    }
                    let n = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    out[o] = UInt8(truncatingIfNeeded: n >> 16)
                    out[o + 1] = UInt8(truncatingIfNeeded: n >> 8)
                    out[o + 2] = UInt8(truncatingIfNeeded: n)
                    i += 4
                    o += 3
                }
                written = valid ? o - padding : 0
            }
        }
        return valid ? decoded : nil
    }
}
