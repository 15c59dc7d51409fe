import Synchronization

/// The first link of AccessToken2's HMAC chain, HMAC-SHA256(key: LE32(issue time), message: certificate), kept for
/// the last certificate and second it was asked for: a server signs every token of a second with the same one.
final class TimeKey: Sendable {
    static let last = TimeKey()

    private struct Slot {
        var certificate = ""
        var issuedAt: UInt32 = 0
        var key = InlineArray<32, UInt8>(repeating: 0)
    }

    private let slot = Mutex(Slot())

    /// Writes the key for `certificate` at `issuedAt` to the 32 bytes at `out`.
    func key(certificate: String, issuedAt: UInt32, into out: UnsafeMutablePointer<UInt8>) {
        let hit = slot.withLock { slot in
            guard slot.issuedAt == issuedAt, slot.certificate == certificate, !slot.certificate.isEmpty else { return false }
            slot.key.span.withUnsafeBufferPointer { out.update(from: $0.baseAddress!, count: 32) }
            return true
        }
        if hit { return }
        var certificate = certificate
        certificate.withUTF8 { bytes in
            withUnsafeBytes(of: issuedAt.littleEndian) {
                Crypto.hmacSHA256(key: $0, message: UnsafeRawBufferPointer(bytes), into: out)
            }
        }
        slot.withLock { slot in
            slot.certificate = certificate
            slot.issuedAt = issuedAt
            var mutable = slot.key.mutableSpan
            mutable.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: out, count: 32) }
        }
    }
}
