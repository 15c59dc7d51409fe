extension AccessToken2 {
    /// Reads a "007" token: any zlib framing, services it cannot model read past or stopped at cleanly.
    public init(parsing token: String) throws(TokenError) {
        guard !token.isEmpty else { throw .emptyToken }
        guard token.utf8.starts(with: Self.version.utf8) else {
            throw .unknownVersion(prefix: String(token.prefix(3)))
        }
        guard let compressed = Base64.decode(token.utf8.dropFirst(3)) else { throw .badBase64 }
        try self.init(content: try Zlib.inflate(compressed))
    }

    /// Reads the inflated content: signature, then the signing info it covers.
    init(content: [UInt8]) throws(TokenError) {
        var reader = ByteReader(content)
        let signature = Array(try reader.bytes("signature"))
        let signedStart = reader.offset
        appID = try reader.string("App ID")
        issuedAt = try reader.u32("issue time")
        expire = try reader.u32("expire")
        salt = try reader.u32("salt")
        let count = try reader.u16("service count")
        services = []
        for _ in 0..<count {
            let type = try reader.u16("service type")
            guard let known = ServiceType(rawValue: type) else {
                unreadServiceType = type
                break
            }
            services.append(try Self.readService(known, from: &reader))
        }
        self.signature = signature
        signedBytes = Array(content[signedStart...])
    }

    /// RTM2's grants: per resource type, per permission type, the resources' names (each level counted by a u16).
    private static func readRTM2Permissions(from reader: inout ByteReader) throws(TokenError) -> [RTM2Permission] {
        var permissions: [RTM2Permission] = []
        for _ in 0..<(try reader.u16("RTM2 resource type count")) {
            let resourceType = try reader.u16("RTM2 resource type")
            for _ in 0..<(try reader.u16("RTM2 permission count")) {
                let permissionType = try reader.u16("RTM2 permission type")
                var resources: [String] = []
                for _ in 0..<(try reader.u16("RTM2 resource count")) { resources.append(try reader.string("RTM2 resource")) }
                permissions.append(RTM2Permission(resourceType: resourceType, permissionType: permissionType, resources: resources))
            }
        }
        return permissions
    }

    private static func readService(_ type: ServiceType, from reader: inout ByteReader) throws(TokenError) -> Service {
        let detail: Service.Detail
        let privileges: PrivilegeMap
        switch type {
        case .rtc:
            privileges = try reader.map("privileges")
            detail = .rtc(channel: try reader.string("channel name"), uid: try reader.string("uid"))
        case .rtm, .chat:
            privileges = try reader.map("privileges")
            detail = .user(try reader.string("user id"))
        case .fpa:
            privileges = try reader.map("privileges")
            detail = .none
        case .apaas:
            privileges = try reader.map("privileges")
            detail = .apaas(room: try reader.string("room"), user: try reader.string("user"),
                            role: try reader.i16("role"))
        case .streaming, .fcdn:
            privileges = try reader.map("privileges")
            detail = .stream(channel: try reader.string("channel name"), account: try reader.string("account"))
        case .rtm2:
            privileges = try reader.map("privileges")
            detail = .rtm2(user: try reader.string("user id"), permissions: try readRTM2Permissions(from: &reader))
        }
        return Service(type: type.rawValue, privileges: privileges, detail: detail)
    }
}
