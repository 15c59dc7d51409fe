import CZlib

/// zlib streams as Agora's builders write them (default level) and read them (any framing, capped output).
enum Zlib {
    /// Largest inflated token accepted: real tokens are a few hundred bytes.
    static let inflateLimit = 16 * 1024

    static func compress(_ input: [UInt8]) -> [UInt8] {
        var capacity = compressBound(uLong(input.count))
        var output = [UInt8](repeating: 0, count: Int(capacity))
        let status = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { inp in
                compress2(out.baseAddress, &capacity, inp.baseAddress, uLong(inp.count), Z_DEFAULT_COMPRESSION)
            }
        }
        precondition(status == Z_OK, "zlib compress2 failed with \(status) on a buffer of compressBound size")
        output.removeLast(output.count - Int(capacity))
        return output
    }

    static func inflate(_ input: [UInt8]) throws(TokenError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: inflateLimit + 1)
        var produced = uLong(output.count)
        var consumed = uLong(input.count)
        let status = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { inp in
                uncompress2(out.baseAddress, &produced, inp.baseAddress, &consumed)
            }
        }
        switch status {
        case Z_OK:
            guard Int(produced) <= inflateLimit else { throw .inflatedTooLarge(limit: inflateLimit) }
            output.removeLast(output.count - Int(produced))
            return output
        case Z_BUF_ERROR where Int(produced) == output.count:
            throw .inflatedTooLarge(limit: inflateLimit)
        default:
            throw .badCompression
        }
    }
}
