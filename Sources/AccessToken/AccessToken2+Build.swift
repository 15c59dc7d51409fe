#if canImport(Glibc)
import Glibc
#endif

extension AccessToken2 {
    /// Longest lifetime Agora gives a privilege.
    public static let maximumPrivilegeSeconds: UInt32 = 86_400

    /// Builds the token string for an RTC user, as Agora's `RtcTokenBuilder2` does.
    ///
    /// `issuedAt` defaults to now and `salt` to a random 1...99999999, as in Agora's builders.
    public static func buildRTC(
        appID: String, appCertificate: String, channel: String, user: RTCUser, role: RTCRole,
        tokenExpire: UInt32, privilegeExpire: UInt32, issuedAt: UInt32? = nil, salt: UInt32? = nil
    ) throws(TokenError) -> String {
        try AgoraID.validateChannelName(channel)
        if case .account(let account) = user { try AgoraID.validateAccount(account) }
        if privilegeExpire > maximumPrivilegeSeconds { throw .privilegeTooLong(seconds: privilegeExpire) }
        let token = AccessToken2(
            appID: appID, issuedAt: issuedAt ?? UInt32(truncatingIfNeeded: time(nil)),
            expire: tokenExpire, salt: salt ?? Self.randomSalt(),
            services: [.rtc(channel: channel, user: user, role: role, privilegeExpire: privilegeExpire)])
        return try token.build(appCertificate: appCertificate)
    }

    /// A salt as Agora's builders draw it: uniform in 1...99999999.
    static func randomSalt() -> UInt32 {
        var source = SaltRandom()
        return UInt32.random(in: 1...99_999_999, using: &source)
    }

    /// Signs the token with the App Certificate and encodes it: "007" + base64(zlib(signature + signing info)).
    public func build(appCertificate: String) throws(TokenError) -> String {
        guard AgoraID.isValid(appID) else { throw .invalidAppID(length: appID.utf8.count) }
        guard AgoraID.isValid(appCertificate) else { throw .invalidAppCertificate(length: appCertificate.utf8.count) }
        guard !services.isEmpty else { throw .noServices }
        let info = signingInfo()
        let signature = Self.signature(of: info, appCertificate: appCertificate, issuedAt: issuedAt, salt: salt)
        var content = ByteWriter(capacity: info.count + 34)
        content.string(signature)
        content.bytes.append(contentsOf: info)
        return Self.version + Base64.encode(Zlib.compress(content.bytes))
    }

    /// The bytes the signature covers.
    func signingInfo() -> [UInt8] {
        var writer = ByteWriter()
        writer.string(appID)
        writer.u32(issuedAt)
        writer.u32(expire)
        writer.u32(salt)
        writer.u16(UInt16(services.count))
        for service in services.sorted(by: { $0.type < $1.type }) {
            writer.u16(service.type)
            writer.map(service.privileges)
            switch service.detail {
            case .none:
                break
            case .rtc(let channel, let uid):
                writer.string(channel)
                writer.string(uid)
            case .user(let user):
                writer.string(user)
            case .apaas(let room, let user, let role):
                writer.string(room)
                writer.string(user)
                writer.u16(UInt16(bitPattern: role))
            case .stream(let channel, let account):
                writer.string(channel)
                writer.string(account)
            case .rtm2(let user, let permissions):
                writer.string(user)
                Self.write(permissions, to: &writer)
            }
        }
        return writer.bytes
    }

    /// HMAC chain of AccessToken2: certificate keyed by issue time, then by salt, then over the signing info.
    /// RTM2's grants, grouped as the format nests them: consecutive grants of one resource type share its entry.
    private static func write(_ permissions: [RTM2Permission], to writer: inout ByteWriter) {
        var groups: [(type: UInt16, grants: [RTM2Permission])] = []
        for permission in permissions {
            if groups.last?.type == permission.resourceType { groups[groups.count - 1].grants.append(permission) }
            else { groups.append((permission.resourceType, [permission])) }
        }
        writer.u16(UInt16(groups.count))
        for group in groups {
            writer.u16(group.type)
            writer.u16(UInt16(group.grants.count))
            for grant in group.grants {
                writer.u16(grant.permissionType)
                writer.u16(UInt16(grant.resources.count))
                for resource in grant.resources { writer.string(resource) }
            }
        }
    }

    static func signature(of info: [UInt8], appCertificate: String, issuedAt: UInt32, salt: UInt32) -> [UInt8] {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { keys in
            let byTime = keys.baseAddress!, bySalt = byTime + 32
            TimeKey.last.key(certificate: appCertificate, issuedAt: issuedAt, into: byTime)
            withUnsafeBytes(of: salt.littleEndian) {
                Crypto.hmacSHA256(key: $0, message: UnsafeRawBufferPointer(start: byTime, count: 32), into: bySalt)
            }
            return [UInt8](unsafeUninitializedCapacity: 32) { out, count in
                info.withUnsafeBytes {
                    Crypto.hmacSHA256(key: UnsafeRawBufferPointer(start: bySalt, count: 32), message: $0, into: out.baseAddress!)
                }
                count = 32
            }
        }
    }
}
