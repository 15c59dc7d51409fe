import PrintableText

extension TokenReport {
    /// The report as aligned lines for a terminal. Each line is escaped for printing, so what came from the token or
    /// the command line shows as `\u001b` and the like: it can neither act on the terminal nor start a line.
    public var text: String {
        var lines: [String] = []
        func row(_ label: String, _ value: String) {
            lines.append(label.padding(to: 12) + value)
        }
        if let version {
            row("token", version == AccessToken2.version ? "007 (AccessToken2)" : "006 (AccessToken, legacy)")
        } else {
            row("token", "not readable")
        }
        if let appID { row("app id", appID) }
        if let issuedAt { row("issued at", "\(UnixTime.iso8601(issuedAt)) (\(issuedAt))") }
        if let expiresAt, let left = secondsLeft {
            let when = left > 0 ? "\(left) s left (\(UnixTime.duration(left)))" : "expired \(-left) s ago"
            row("expires at", "\(UnixTime.iso8601(expiresAt)) (\(expiresAt)), \(when)")
            if let issuedAt { row("lifetime", "\(expiresAt - issuedAt) s (\(UnixTime.duration(expiresAt - issuedAt)))") }
        }
        if let salt { row("salt", String(salt)) }
        for service in services {
            var line = service.name
            if let channel = service.channel { line += "  channel \"\(channel)\"" }
            if let user = service.user {
                line += service.type == ServiceType.rtc.rawValue ? "  " + Self.describeUID(user) : "  user \"\(user)\""
            }
            row("service", line)
            for privilege in service.privileges {
                let end = privilege.expiresAt.map { "until \(UnixTime.iso8601($0)) (\($0))" } ?? "no limit of its own"
                lines.append("  " + privilege.name.padding(to: 21) + end)
            }
            for permission in service.permissions {
                lines.append("  " + permission.name.padding(to: 23) + permission.resources.map { "\"\($0)\"" }.joined(separator: ", "))
            }
        }
        if version != nil { row("signature", signature.rawValue + (signature == .notChecked ? " (give --app-certificate)" : "")) }
        if let channelMatches { row("channel", channelMatches ? "matches" : "does NOT match") }
        if let uidMatches { row("uid", uidMatches ? "matches" : "does NOT match") }
        row("verdict", isValid ? "valid for what was asked" : "NOT valid")
        if !problems.isEmpty { lines.append("problems"); lines += problems.map { "  - " + $0 } }
        if !notes.isEmpty { lines.append("notes"); lines += notes.map { "  - " + $0 } }
        return lines.map(\.escapedForPrinting).joined(separator: "\n")
    }

    /// "uid 42", "any uid (0)" or "account \"alice\"", as a token's uid field reads to a person.
    static func describeUID(_ uid: String) -> String {
        RTCUser(tokenField: uid).map(String.init(describing:)) ?? "any uid (0)"
    }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
