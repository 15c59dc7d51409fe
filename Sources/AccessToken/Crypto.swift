import CCrypto
import CZlib

enum Crypto {
    static func hmacSHA256(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        withBytes(key) { k in
            withBytes(message) { m in
                [UInt8](unsafeUninitializedCapacity: 32) { out, count in
                    tc_hmac_sha256(k.baseAddress, k.count, m.baseAddress, m.count, out.baseAddress)
                    count = 32
                }
            }
        }
    }

    /// HMAC-SHA256 of `message` under `key`, written to the 32 bytes at `out`.
    static func hmacSHA256(key: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<UInt8>) {
        tc_hmac_sha256(key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count,
                       message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count, out)
    }

    static func equalInConstantTime(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        return withBytes(a) { pa in
            withBytes(b) { pb in tc_equal_constant_time(pa.baseAddress, pb.baseAddress, pa.count) == 1 }
        }
    }

    static func crc32(_ bytes: some Collection<UInt8>) -> UInt32 {
        withBytes(bytes) { UInt32(CZlib.crc32(0, $0.baseAddress, UInt32($0.count))) }
    }

    private static func withBytes<R>(_ bytes: some Collection<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = bytes.withContiguousStorageIfAvailable(body) { return result }
        return Array(bytes).withUnsafeBufferPointer(body)
    }
}
