import CCrypto
import Foundation

/// Builds 006 tokens (AccessToken, legacy) as PyPI's agora-token-builder 1.0.0 does, for tests of the servers that
/// still make them: tokencall itself only reads 006.
public enum Legacy006 {
    /// A token for `channel` and the user `uid` as text ("" is any uid; a server passing uid 0 on as text makes "0"),
    /// its message expiring at `messageExpiresAt` and each of `privileges` (1 join … 4 publish data) at `privilegesExpireAt`.
    public static func token(appID: String = TestCredentials.appID, certificate: String = TestCredentials.certificate, channel: String,
                             uid: String, salt: UInt32 = 1, messageExpiresAt: UInt32, privileges: [UInt16] = [1, 2, 3, 4],
                             privilegesExpireAt: UInt32) -> String {
        var message = le32(salt) + le32(messageExpiresAt) + le16(UInt16(privileges.count))
        for id in privileges { message += le16(id) + le32(privilegesExpireAt) }
        var signature = [UInt8](repeating: 0, count: 32)
        let key = Array(certificate.utf8), signed = Array((appID + channel + uid).utf8) + message
        tc_hmac_sha256(key, key.count, signed, signed.count, &signature)
        let content = le16(32) + signature + le32(crc32(channel.utf8)) + le32(crc32(uid.utf8)) + le16(UInt16(message.count)) + message
        return "006" + appID + Data(content).base64EncodedString()
    }

    private static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }

    /// zlib's CRC-32, which 006 keeps of the channel and the uid text.
    private static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
