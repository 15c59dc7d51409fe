extension TokenReport {
    mutating func describe(_ token: AccessToken2, check: TokenCheck) {
        version = AccessToken2.version
        appID = token.appID
        issuedAt = Int64(token.issuedAt)
        expiresAt = token.expiresAt
        salt = token.salt
        services = token.services.map { service in
            let kind = ServiceType(rawValue: service.type)
            let privileges = service.privileges.map { entry in
                Privilege(id: entry.id, name: Self.privilegeName(entry.id, service: kind),
                          expiresAt: entry.value == 0 ? nil : Int64(token.issuedAt) + Int64(entry.value))
            }
            var summary = ServiceSummary(type: service.type, name: kind?.name ?? "type \(service.type)",
                                         privileges: privileges)
            switch service.detail {
            case .none: break
            case .rtc(let channel, let uid): summary.channel = channel; summary.user = uid
            case .user(let user): summary.user = user
            case .apaas(let room, let user, _): summary.channel = room; summary.user = user
            case .stream(let channel, let account): summary.channel = channel; summary.user = account
            case .rtm2(let user, let permissions): summary.user = user; summary.permissions = permissions
            }
            return summary
        }
        for type in Set(token.services.map(\.type)).sorted() {
            let count = token.services.count { $0.type == type }
            guard count > 1 else { continue }
            let name = ServiceType(rawValue: type)?.name ?? "type \(type)"
            notes.append("it holds the \(name) service \(count) times (a builder that keeps every service added writes each); "
                         + (type == ServiceType.rtc.rawValue ? "the first is the one checked here" : "each is shown"))
        }
        if let type = token.unreadServiceType {
            notes.append("it also carries service type \(type), which this tool cannot read past; the signature still covers it")
        }
        if let certificate = check.appCertificate {
            signature = token.hasValidSignature(appCertificate: certificate) ? .valid : .invalid
        }
        if let channel = check.channel { channelMatches = token.rtc?.channel == channel }
        if let user = check.user, let uid = token.rtc?.uid { uidMatches = uid.isEmpty || uid == user.tokenField }
        if token.expire > 1_000_000_000 {
            problems.append("its expire field is \(token.expire) s, which looks like a unix time: AccessToken2 builders take seconds from now (600 for 10 min), unlike 006 builders, which took absolute times")
        }
        let privilegeEnds = services.flatMap(\.privileges).compactMap(\.expiresAt)
        if let first = privilegeEnds.min(), let expiresAt, first < expiresAt {
            notes.append("a privilege ends at \(UnixTime.iso8601(first)), before the token itself does")
        }
        if token.rtc?.privileges.values.contains(0) == true {
            notes.append("a privilege value of 0 sets no limit of its own: the token's expiry applies")
        }
    }

    mutating func describe(_ token: AccessToken006, check: TokenCheck) {
        version = AccessToken006.version
        appID = token.appID
        expiresAt = Int64(token.messageExpiresAt)
        salt = token.salt
        let privileges = token.privileges.map { entry in
            Privilege(id: entry.id, name: entry.id == 1000 ? "rtmLogin" : Self.privilegeName(entry.id, service: .rtc),
                      expiresAt: entry.value == 0 ? nil : Int64(entry.value))
        }
        services = [ServiceSummary(type: ServiceType.rtc.rawValue, name: "RTC", privileges: privileges)]
        notes.append("this is a 006 AccessToken, the format before AccessToken2 (007): Agora still accepts it, but current builders make 007; it stores channel and uid only as checksums")
        // The checksum names whom the token is for when it is the user asked or the other reading of that user's text.
        let holder = check.user.flatMap(token.user(near:))
        if token.isForAnyUID { services[0].user = "" } else if let holder { services[0].user = holder.tokenField }
        if let channel = check.channel { channelMatches = token.matches(channel: channel) }
        if let user = check.user { uidMatches = token.matches(user: user) }
        if let certificate = check.appCertificate {
            // 006 signs the user's text, so the signature is checked for the user the token is for: a token for another
            // user is no sign of another certificate.
            if let channel = check.channel, let user = token.isForAnyUID ? check.user : holder {
                signature = token.hasValidSignature(appCertificate: certificate, channel: channel, user: user) ? .valid : .invalid
            } else {
                signature = check.channel != nil && check.user != nil ? .forAnotherUser : .needsChannelAndUid
            }
        }
    }

    /// Plain-words checks that apply to either version, after the fields are read.
    mutating func diagnose(check: TokenCheck) {
        if let expected = check.appID, let appID, expected != appID {
            problems.append("it was built for App ID \(appID), but you use \(expected): take App ID and certificate from the same Console project")
        }
        if signature == .invalid {
            problems.append("signature INVALID: it was built with a different App Certificate (or altered); the token server's APP_CERTIFICATE must be the primary certificate of App ID \(appID ?? "?")")
        }
        if let expiresAt {
            if now >= expiresAt {
                problems.append("it expired \(UnixTime.duration(now - expiresAt)) ago, at \(UnixTime.iso8601(expiresAt)); fetch a fresh token (a server that computes the expiry once at start-up hands out stale tokens)")
            } else if expiresAt - now <= 30 {
                notes.append("only \(expiresAt - now) s left: the SDK fires tokenPrivilegeWillExpire 30 s before expiry, so it would fire at once")
            }
        }
        if let issuedAt, issuedAt > now + 300 {
            notes.append("it was issued \(UnixTime.duration(issuedAt - now)) in the future: the token server's clock is ahead")
        }
        if let rtc {
            if let joinEnd = rtc.privileges.first(where: { $0.id == RTCPrivilege.joinChannel.rawValue }) {
                if let end = joinEnd.expiresAt, now >= end, expiresAt.map({ now < $0 }) ?? true {
                    problems.append("its joinChannel privilege expired \(UnixTime.duration(now - end)) ago")
                }
            } else {
                problems.append("it has no joinChannel privilege, so it cannot join a channel")
            }
            if rtc.privileges.count == 1 {
                notes.append("subscriber role: it may join but not publish (enforced only when co-host authentication is on)")
            }
        } else if version == AccessToken2.version {
            problems.append("it grants no RTC service (only \(services.map(\.name).joined(separator: ", "))), so it cannot join a channel")
        }
        diagnoseChannel(check: check)
        diagnoseUser(check: check)
    }

    private mutating func diagnoseChannel(check: TokenCheck) {
        guard let asked = check.channel, channelMatches == false else { return }
        guard let channel = rtc?.channel else {
            problems.append("its channel checksum does not match channel \"\(asked)\"")
            return
        }
        var problem = "it was built for channel \"\(channel)\", not \"\(asked)\""
        if channel.lowercased() == asked.lowercased() {
            problem += ": they differ only in letter case, and channel names are case-sensitive"
        } else if channel.trimmingSpaceAndQuotes() == asked.trimmingSpaceAndQuotes() {
            problem += ": they differ in surrounding spaces or quotes"
        }
        problems.append(problem)
    }

    private mutating func diagnoseUser(check: TokenCheck) {
        guard let user = check.user, uidMatches == false else { return }
        guard let uid = rtc?.user else {
            problems.append("its uid checksum does not match \(user): it is for another user, which a 006 token does not name"
                            + (check.appCertificate == nil ? "" : ", and whose name its signature covers, so the signature cannot be checked"))
            return
        }
        problems.append(TokenError.userMismatch(token: uid, joining: user))
    }

    static func privilegeName(_ id: UInt16, service: ServiceType?) -> String {
        switch service {
        case .rtc: RTCPrivilege(rawValue: id)?.name ?? "privilege \(id)"
        case .rtm, .fpa: id == 1 ? "login" : "privilege \(id)"
        case .chat: id == 1 ? "user" : id == 2 ? "app" : "privilege \(id)"
        case .apaas: id == 1 ? "roomUser" : id == 2 ? "user" : id == 3 ? "app" : "privilege \(id)"
        case .streaming: id == 1 ? "publishMixStream" : id == 2 ? "publishRawStream" : "privilege \(id)"
        case .fcdn: id == 1 ? "publish" : id == 2 ? "play" : "privilege \(id)"
        case .rtm2: id == 1 ? "login" : "privilege \(id)"
        default: "privilege \(id)"
        }
    }
}
