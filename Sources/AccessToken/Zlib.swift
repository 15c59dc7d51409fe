import CZlib

/// zlib streams as Agora's builders write them (default level) and read them (any framing, capped output).
///
/// Token-sized inputs are deflated by `SmallDeflate`, which writes zlib's exact bytes without its 64 KB reset.
/// Larger ones, and inflating, use a zlib stream of each thread's own, kept and reset rather than made anew: setting
/// one up costs several times more than compressing a token, and the output of a reset stream is byte-identical.
enum Zlib {
    /// Largest inflated token accepted: real tokens are a few hundred bytes.
    static let inflateLimit = 16 * 1024

    private static let deflaters = PerThread { Stream(deflating: true) }
    private static let inflaters = PerThread { Stream(deflating: false) }

    /// What zlib's `compress2` at the default level writes for `input`.
    static func compress(_ input: [UInt8]) -> [UInt8] {
        if input.count <= SmallDeflate.limit { return input.withUnsafeBufferPointer(SmallDeflate.compress) }
        return compressWithZlib(input)
    }

    /// `compress`, always by zlib itself.
    static func compressWithZlib(_ input: [UInt8]) -> [UInt8] {
        let z = deflaters.object.z
        deflateReset(z)
        let bound = Int(deflateBound(z, uLong(input.count)))
        return [UInt8](unsafeUninitializedCapacity: bound) { out, count in
            input.withUnsafeBufferPointer { inp in
                z.pointee.next_in = UnsafeMutablePointer(mutating: inp.baseAddress)
                z.pointee.avail_in = uInt(inp.count)
                z.pointee.next_out = out.baseAddress
                z.pointee.avail_out = uInt(bound)
                let status = deflate(z, Z_FINISH)
                precondition(status == Z_STREAM_END, "zlib deflate into a deflateBound buffer returned \(status)")
                count = bound - Int(z.pointee.avail_out)
            }
        }
    }

    static func inflate(_ input: [UInt8]) throws(TokenError) -> [UInt8] {
        let inflater = inflaters.object
        let z = inflater.z
        inflateReset(z)
        let capacity = inflateLimit + 1
        let status = input.withUnsafeBufferPointer { inp in
            z.pointee.next_in = UnsafeMutablePointer(mutating: inp.baseAddress)
            z.pointee.avail_in = uInt(inp.count)
            z.pointee.next_out = inflater.scratch
            z.pointee.avail_out = uInt(capacity)
            return CZlib.inflate(z, Z_FINISH)
        }
        let produced = capacity - Int(z.pointee.avail_out)
        if status == Z_STREAM_END, produced <= inflateLimit {
            return Array(UnsafeBufferPointer(start: inflater.scratch, count: produced))
        }
        if produced > inflateLimit { throw .inflatedTooLarge(limit: inflateLimit) }
        throw .badCompression
    }

    /// A z_stream at a fixed address (zlib's state points back at it) and, for inflating, its output buffer.
    private final class Stream {
        let z = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        let scratch: UnsafeMutablePointer<UInt8>?
        let deflating: Bool

        init(deflating: Bool) {
            self.deflating = deflating
            z.initialize(to: z_stream())
            let size = Int32(MemoryLayout<z_stream>.size)
            if deflating {
                scratch = nil
                let status = deflateInit2_(z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, MAX_WBITS, 8, Z_DEFAULT_STRATEGY,
                                           ZLIB_VERSION, size)
                precondition(status == Z_OK, "zlib deflateInit2 returned \(status)")
            } else {
                scratch = .allocate(capacity: Zlib.inflateLimit + 1)
                let status = inflateInit_(z, ZLIB_VERSION, size)
                precondition(status == Z_OK, "zlib inflateInit returned \(status)")
            }
        }

        deinit {
            if deflating { deflateEnd(z) } else { inflateEnd(z) }
            z.deallocate()
            scratch?.deallocate()
        }
    }
}
