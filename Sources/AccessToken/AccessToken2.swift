/// Agora's AccessToken2 (version "007"): what it grants, to whom, and until when.
public struct AccessToken2: Sendable, Equatable {
    public static let version = "007"

    public var appID: String
    /// Unix time the token was issued.
    public var issuedAt: UInt32
    /// Seconds after `issuedAt` at which the token expires.
    public var expire: UInt32
    public var salt: UInt32
    /// Services in ascending type order; a type may come more than once (builders keep every service added).
    public var services: [Service]
    /// The 32-byte signature a parsed token carries; empty until signed.
    public internal(set) var signature: [UInt8] = []
    /// Set when parsing stopped at a service type this library cannot read past.
    public internal(set) var unreadServiceType: UInt16?
    /// The bytes the signature covers, exactly as read; empty for a token built in memory.
    var signedBytes: [UInt8] = []

    public init(appID: String, issuedAt: UInt32, expire: UInt32, salt: UInt32, services: [Service]) {
        self.appID = appID
        self.issuedAt = issuedAt
        self.expire = expire
        self.salt = salt
        self.services = services
    }

    /// Unix time the token stops being accepted.
    public var expiresAt: Int64 { Int64(issuedAt) + Int64(expire) }

    /// The RTC service, if the token grants one.
    public var rtc: Service? { services.first { $0.type == ServiceType.rtc.rawValue } }

    public static func == (a: Self, b: Self) -> Bool {
        a.appID == b.appID && a.issuedAt == b.issuedAt && a.expire == b.expire && a.salt == b.salt
            && a.services == b.services && a.signature == b.signature && a.unreadServiceType == b.unreadServiceType
    }
}

/// The service types Agora defines; RTC is the one this project uses.
public enum ServiceType: UInt16, Sendable, CaseIterable {
    case rtc = 1, rtm = 2, streaming = 3, fpa = 4, chat = 5, fcdn = 6, apaas = 7, rtm2 = 8

    public var name: String {
        switch self {
        case .rtc: "RTC"
        case .rtm: "RTM"
        case .streaming: "Streaming"
        case .fpa: "FPA"
        case .chat: "Chat"
        case .fcdn: "FCDN"
        case .apaas: "APaaS"
        case .rtm2: "RTM2"
        }
    }
}

/// One service of a token: its privileges (id to seconds after issue) and the fields its type adds.
public struct Service: Sendable, Equatable {
    public var type: UInt16
    public var privileges: PrivilegeMap
    public var detail: Detail

    /// The fields after the privileges, which depend on the service type.
    public enum Detail: Sendable, Equatable {
        case none
        case rtc(channel: String, uid: String)
        case user(String)
        case apaas(room: String, user: String, role: Int16)
        /// Streaming (3) and FCDN (6): a channel and a user account ("" for any).
        case stream(channel: String, account: String)
        /// RTM2 (8): a user id and what it may read or write.
        case rtm2(user: String, permissions: [RTM2Permission])
    }

    public init(type: UInt16, privileges: PrivilegeMap, detail: Detail) {
        self.type = type
        self.privileges = privileges
        self.detail = detail
    }

    /// An RTC service for a channel and user with the privileges of a role, each lasting `privilegeExpire` s.
    public static func rtc(channel: String, user: RTCUser, role: RTCRole, privilegeExpire: UInt32) -> Service {
        Service(type: ServiceType.rtc.rawValue,
                privileges: PrivilegeMap(ids: role.privileges.map(\.rawValue), value: privilegeExpire),
                       detail: .rtc(channel: channel, uid: user.tokenField))
    }

    /// Channel name, when this is an RTC service.
    public var channel: String? {
        if case .rtc(let channel, _) = detail { channel } else { nil }
    }

    /// The uid field as carried ("" is the any-uid wildcard), when this is an RTC service.
    public var uid: String? {
        if case .rtc(_, let uid) = detail { uid } else { nil }
    }
}

/// One grant of an RTM2 service: a permission on resources of one kind, by name.
public struct RTM2Permission: Sendable, Equatable {
    /// 0 message channels, 1 stream channels, 2 group channels, 3 server groups, 4 users.
    public var resourceType: UInt16
    /// 0 read, 1 write.
    public var permissionType: UInt16
    public var resources: [String]

    public init(resourceType: UInt16, permissionType: UInt16, resources: [String]) {
        self.resourceType = resourceType
        self.permissionType = permissionType
        self.resources = resources
    }

    /// "write streamChannels", as a person reads the two numbers.
    public var name: String {
        let permission = ["read", "write"].indices.contains(Int(permissionType)) ? ["read", "write"][Int(permissionType)]
            : "permission \(permissionType)"
        let kinds = ["messageChannels", "streamChannels", "groupChannels", "serverGroups", "users"]
        let resource = kinds.indices.contains(Int(resourceType)) ? kinds[Int(resourceType)] : "resource type \(resourceType)"
        return "\(permission) \(resource)"
    }
}

/// The privileges of the RTC service.
public enum RTCPrivilege: UInt16, Sendable, CaseIterable {
    case joinChannel = 1, publishAudioStream = 2, publishVideoStream = 3, publishDataStream = 4

    public var name: String {
        switch self {
        case .joinChannel: "joinChannel"
        case .publishAudioStream: "publishAudioStream"
        case .publishVideoStream: "publishVideoStream"
        case .publishDataStream: "publishDataStream"
        }
    }
}

/// Token roles as Agora's builders define them: 1 publisher, 2 subscriber.
public enum RTCRole: Int, Sendable, CaseIterable {
    case publisher = 1, subscriber = 2

    public var privileges: [RTCPrivilege] {
        switch self {
        case .publisher: RTCPrivilege.allCases
        case .subscriber: [.joinChannel]
        }
    }
}

/// Whom an RTC token is for: an integer uid (0 fits any uid) or a string user account.
public enum RTCUser: Sendable, Hashable, CustomStringConvertible {
    case uid(UInt32)
    case account(String)

    /// The uid field a token carries for this user: uid 0 becomes "", the wildcard; an account stays as given.
    public var tokenField: String {
        switch self {
        case .uid(0): ""
        case .uid(let uid): String(uid)
        case .account(let account): account
        }
    }

    public var description: String {
        switch self {
        case .uid(let uid): "uid \(uid)"
        case .account(let account): "account \"\(account)\""
        }
    }

    /// The user a token's uid field names: digits that fit 32 bits, without a leading 0, are a uid, any other text
    /// an account ("0" included); nil for "", the any-uid wildcard.
    public init?(tokenField field: String) {
        guard !field.isEmpty else { return nil }
        if field.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), !field.hasPrefix("0"), let uid = UInt32(field) {
            self = .uid(uid)
        } else {
            self = .account(field)
        }
    }
}
