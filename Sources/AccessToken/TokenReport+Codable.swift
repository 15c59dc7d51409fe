/// The `--json` shape of a report; field names are documented in Docs/inspect-json.md.
extension TokenReport: Encodable {
    private enum Key: String, CodingKey {
        case valid, version, appId, issuedAt, issuedAtISO, expiresAt, expiresAtISO, secondsLeft, salt
        case services, signature, channelMatches, uidMatches, problems, notes, now
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(isValid, forKey: .valid)
        try c.encode(version, forKey: .version)
        try c.encode(appID, forKey: .appId)
        try c.encode(issuedAt, forKey: .issuedAt)
        try c.encode(issuedAt.map(UnixTime.iso8601), forKey: .issuedAtISO)
        try c.encode(expiresAt, forKey: .expiresAt)
        try c.encode(expiresAt.map(UnixTime.iso8601), forKey: .expiresAtISO)
        try c.encode(secondsLeft, forKey: .secondsLeft)
        try c.encode(salt, forKey: .salt)
        try c.encode(services, forKey: .services)
        let signatureValue: String = switch signature {
        case .notChecked: "notChecked"
        case .valid: "valid"
        case .invalid: "invalid"
        case .needsChannelAndUid: "needsChannelAndUid"
        case .forAnotherUser: "forAnotherUser"
        }
        try c.encode(signatureValue, forKey: .signature)
        try c.encode(channelMatches, forKey: .channelMatches)
        try c.encode(uidMatches, forKey: .uidMatches)
        try c.encode(problems, forKey: .problems)
        try c.encode(notes, forKey: .notes)
        try c.encode(now, forKey: .now)
    }
}

extension TokenReport.ServiceSummary: Encodable {
    private enum Key: String, CodingKey { case type, name, privileges, channel, uid, anyUid, user, permissions }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(type, forKey: .type)
        try c.encode(name, forKey: .name)
        try c.encode(privileges, forKey: .privileges)
        if type == ServiceType.rtc.rawValue {
            try c.encode(channel, forKey: .channel)
            try c.encode(user, forKey: .uid)
            try c.encode(user.map(\.isEmpty), forKey: .anyUid)
        } else {
            try c.encodeIfPresent(channel, forKey: .channel)
            try c.encodeIfPresent(user, forKey: .user)
        }
        if type == ServiceType.rtm2.rawValue { try c.encode(permissions, forKey: .permissions) }
    }
}

extension RTM2Permission: Encodable {
    private enum Key: String, CodingKey { case resourceType, permissionType, name, resources }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(resourceType, forKey: .resourceType)
        try c.encode(permissionType, forKey: .permissionType)
        try c.encode(name, forKey: .name)
        try c.encode(resources, forKey: .resources)
    }
}

extension TokenReport.Privilege: Encodable {
    private enum Key: String, CodingKey { case id, name, expiresAt, expiresAtISO }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(expiresAt, forKey: .expiresAt)
        try c.encode(expiresAt.map(UnixTime.iso8601), forKey: .expiresAtISO)
    }
}
