/// Standard base64 (RFC 4648 §4, `+/` and `=` padding), strict on decode.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = UInt8(index) }
        return table
    }()

    static func encode(_ input: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((input.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= input.count {
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
            out.append(alphabet[Int(n & 63)])
            i += 3
        }
        switch input.count - i {
        case 1:
            let n = UInt32(input[i]) << 16
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], UInt8(ascii: "="), UInt8(ascii: "=")]
        case 2:
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], UInt8(ascii: "=")]
        default:
            break
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The decoded bytes, or nil when the text is not canonical padded base64.
    static func decode(_ text: Substring.UTF8View) -> [UInt8]? {
        let count = text.count
        guard count % 4 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(count / 4 * 3)
        var quad: UInt32 = 0
        var filled = 0
        var padding = 0
        for char in text {
            if char == UInt8(ascii: "=") {
                padding += 1
                quad <<= 6
            } else {
                let value = values[Int(char)]
                guard value != 0xFF, padding == 0 else { return nil }
                quad = quad << 6 | UInt32(value)
            }
            filled += 1
            if filled == 4 {
                // Canonical only: the bits a padded group leaves over must be zero.
                if (padding == 1 && quad & 0xFF != 0) || (padding == 2 && quad & 0xFFFF != 0) { return nil }
                out.append(UInt8(truncatingIfNeeded: quad >> 16))
                out.append(UInt8(truncatingIfNeeded: quad >> 8))
                out.append(UInt8(truncatingIfNeeded: quad))
                quad = 0
                filled = 0
            }
        }
        guard padding <= 2 else { return nil }
        out.removeLast(padding)
        return out
    }
}
