/// What a token is checked against; a nil part is not checked.
public struct TokenCheck: Sendable, Equatable {
    public var appID: String?
    public var appCertificate: String?
    public var channel: String?
    public var user: RTCUser?

    public init(appID: String? = nil, appCertificate: String? = nil, channel: String? = nil, user: RTCUser? = nil) {
        self.appID = appID
        self.appCertificate = appCertificate
        self.channel = channel
        self.user = user
    }
}

extension AccessToken2 {
    /// True when the token was signed with this App Certificate and not altered since.
    public func hasValidSignature(appCertificate: String) -> Bool {
        guard signature.count == 32 else { return false }
        let info = signedBytes.isEmpty ? signingInfo() : signedBytes
        let expected = Self.signature(of: info, appCertificate: appCertificate, issuedAt: issuedAt, salt: salt)
        return Crypto.equalInConstantTime(expected, signature)
    }

    /// Unix time the RTC join privilege ends, or nil when the privilege is absent.
    ///
    /// A privilege value of 0 sets no limit of its own: the token's expiry applies.
    public var joinExpiresAt: Int64? {
        guard let value = rtc?.privileges[RTCPrivilege.joinChannel.rawValue] else { return nil }
        return value == 0 ? expiresAt : min(expiresAt, Int64(issuedAt) + Int64(value))
    }

    /// Throws the first reason Agora's network would refuse this token for a join at unix time `now`.
    ///
    /// Order: App ID, signature, expiry, RTC service and join privilege, channel, uid.
    public func validate(_ check: TokenCheck, now: Int64) throws(TokenError) {
        if let appID = check.appID, appID != self.appID {
            throw .appIDMismatch(token: self.appID, expected: appID)
        }
        if let certificate = check.appCertificate, !hasValidSignature(appCertificate: certificate) {
            throw .signatureMismatch
        }
        if now >= expiresAt { throw .expired(expiredAt: expiresAt, secondsAgo: now - expiresAt) }
        guard let rtc else { throw .noRTCService }
        guard let joinEnd = joinExpiresAt else { throw .noJoinPrivilege }
        if now >= joinEnd { throw .joinPrivilegeExpired(expiredAt: joinEnd, secondsAgo: now - joinEnd) }
        if let channel = check.channel, rtc.channel != channel {
            throw .channelMismatch(token: rtc.channel ?? "", expected: channel)
        }
        if let user = check.user, let uid = rtc.uid, !uid.isEmpty, uid != user.tokenField {
            throw .uidMismatch(token: uid, expected: user)
        }
    }
}
