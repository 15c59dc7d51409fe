/// Agora's older AccessToken (version "006"), read-only: channel and uid travel only as CRC32s.
public struct AccessToken006: Sendable, Equatable {
    public static let version = "006"
    /// How long after its issue builders make a token's message expire.
    public static let messageLifetimeSeconds: Int64 = 86_400

    public var appID: String
    public var signature: [UInt8]
    public var channelCRC: UInt32
    public var uidCRC: UInt32
    public var salt: UInt32
    /// Unix time the token's message stops being accepted (builders set it to issue time + `messageLifetimeSeconds`).
    public var messageExpiresAt: UInt32
    /// Privilege id to unix expiry time; 0 means no expiry.
    public var privileges: PrivilegeMap
    /// The signed message `salt + ts + privileges`, as read.
    var message: [UInt8]

    public init(parsing token: String) throws(TokenError) {
        guard !token.isEmpty else { throw .emptyToken }
        guard token.utf8.starts(with: Self.version.utf8) else {
            throw .unknownVersion(prefix: String(token.prefix(3)))
        }
        let utf8 = token.utf8
        guard utf8.count >= 3 + 32 else { throw .truncated(field: "App ID") }
        let bodyStart = utf8.index(utf8.startIndex, offsetBy: 35)
        appID = String(decoding: utf8[utf8.index(utf8.startIndex, offsetBy: 3)..<bodyStart], as: UTF8.self)
        guard let content = Base64.decode(token[bodyStart...].utf8) else { throw .badBase64 }
        var reader = ByteReader(content)
        signature = Array(try reader.bytes("signature"))
        channelCRC = try reader.u32("channel checksum")
        uidCRC = try reader.u32("uid checksum")
        message = Array(try reader.bytes("message"))
        var inner = ByteReader(message)
        salt = try inner.u32("salt")
        messageExpiresAt = try inner.u32("message expiry")
        privileges = try inner.map("privileges")
    }

    /// True when the token was built for uid 0, which fits any uid (the CRC32 of "" is 0).
    public var isForAnyUID: Bool { uidCRC == 0 }

    /// True when the channel's CRC32 is the one the token carries.
    public func matches(channel: String) -> Bool { Crypto.crc32(channel.utf8) == channelCRC }

    /// True when the token fits this user: built for it, or for any uid.
    public func matches(user: RTCUser) -> Bool { isForAnyUID || Crypto.crc32(user.tokenField.utf8) == uidCRC }

    /// The user the token's uid checksum names: `user`, or the other reading of the same text (uid 0 and the account
    /// "0", which servers passing the uid on as text make; a uid and its digits as an account); nil when neither, or
    /// for a token for any uid.
    public func user(near user: RTCUser) -> RTCUser? {
        guard !isForAnyUID else { return nil }
        let other: RTCUser? = switch user {
        case .uid(let uid): .account(String(uid))
        case .account(let account): UInt32(account).map(RTCUser.uid)
        }
        return [user, other].compactMap { $0 }.first { Crypto.crc32($0.tokenField.utf8) == uidCRC }
    }

    /// True when the signature was made with this certificate for this channel and user.
    public func hasValidSignature(appCertificate: String, channel: String, user: RTCUser) -> Bool {
        var signed = Array(appID.utf8)
        signed += channel.utf8
        signed += isForAnyUID ? [] : Array(user.tokenField.utf8)
        signed += message
        return Crypto.equalInConstantTime(Crypto.hmacSHA256(key: appCertificate.utf8, message: signed), signature)
    }

    /// Unix time the join privilege ends: nil when absent, `UInt32.max` when it never does.
    public var joinExpiresAt: Int64? {
        guard let value = privileges[RTCPrivilege.joinChannel.rawValue] else { return nil }
        return value == 0 ? Int64(UInt32.max) : Int64(value)
    }

    /// Throws the first reason Agora's network would refuse this token for a join at unix time `now`.
    ///
    /// The signature can only be checked when channel and user are given with the certificate.
    public func validate(_ check: TokenCheck, now: Int64) throws(TokenError) {
        if let appID = check.appID, appID != self.appID {
            throw .appIDMismatch(token: self.appID, expected: appID)
        }
        if let channel = check.channel, !matches(channel: channel) {
            throw .crcMismatch(field: "channel")
        }
        if let user = check.user, !matches(user: user) {
            guard let holder = self.user(near: user) else { throw .crcMismatch(field: "uid") }
            throw .uidMismatch(token: holder.tokenField, expected: user)
        }
        if let certificate = check.appCertificate, let channel = check.channel, let user = check.user,
           !hasValidSignature(appCertificate: certificate, channel: channel, user: user) {
            throw .signatureMismatch
        }
        if now >= Int64(messageExpiresAt) {
            throw .expired(expiredAt: Int64(messageExpiresAt), secondsAgo: now - Int64(messageExpiresAt))
        }
        guard let joinEnd = joinExpiresAt else { throw .noJoinPrivilege }
        if now >= joinEnd { throw .joinPrivilegeExpired(expiredAt: joinEnd, secondsAgo: now - joinEnd) }
    }
}

/// A token of either version, as read from a string.
public enum AgoraToken: Sendable, Equatable {
    case accessToken2(AccessToken2)
    case accessToken006(AccessToken006)

    /// Reads a "007" or "006" token; anything else is `unknownVersion`.
    public init(parsing token: String) throws(TokenError) {
        if token.utf8.starts(with: AccessToken006.version.utf8) {
            self = .accessToken006(try AccessToken006(parsing: token))
        } else {
            self = .accessToken2(try AccessToken2(parsing: token))
        }
    }

    public var appID: String {
        switch self {
        case .accessToken2(let token): token.appID
        case .accessToken006(let token): token.appID
        }
    }

    /// Unix time after which the token no longer admits a join: its expiry or its join privilege's, if earlier.
    public var joinDeadline: Int64 {
        switch self {
        case .accessToken2(let token): token.joinExpiresAt ?? token.expiresAt
        case .accessToken006(let token):
            min(Int64(token.messageExpiresAt), token.joinExpiresAt ?? Int64(token.messageExpiresAt))
        }
    }

    /// Unix time the token was made: a 007 token's issue time; a 006 token carries none, so its message expiry less
    /// the `messageLifetimeSeconds` its builders give every message.
    public var issuedAt: Int64 {
        switch self {
        case .accessToken2(let token): Int64(token.issuedAt)
        case .accessToken006(let token): Int64(token.messageExpiresAt) - AccessToken006.messageLifetimeSeconds
        }
    }

    public func validate(_ check: TokenCheck, now: Int64) throws(TokenError) {
        switch self {
        case .accessToken2(let token): try token.validate(check, now: now)
        case .accessToken006(let token): try token.validate(check, now: now)
        }
    }
}
