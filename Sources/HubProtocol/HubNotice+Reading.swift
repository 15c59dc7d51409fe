import AgoraVocabulary
import JSON

extension HubNotice {
    /// Reads one notice from a text message's JSON as a client receives it; every member is checked and a wrong
    /// one named, and a `type` that is not one of the hub's is an error, as is a code that is not one of Agora's.
    public init(json text: String) throws(HubProtocolError) {
        if let notice = Self.presence(inJSON: text) {
            self = notice
        } else {
            try self.init(readingJSON: text)
        }
    }

    /// `init(json:)` through the JSON reader, for every notice: what `presence(inJSON:)` leaves to it.
    init(readingJSON text: String) throws(HubProtocolError) {
        let notice = try Fields(json: text, of: "a notice")
        switch try notice.string("type") {
        case "joined":
            guard case .array(let list)? = notice.members["users"] else {
                throw HubProtocolError("users must be an array of {uid, account}")
            }
            var users: [HubPeer] = []
            for entry in list {
                guard let members = entry.object else { throw HubProtocolError("each of users is an object, not \(entry.kind)") }
                users.append(try Fields(members).peer())
            }
            self = .joined(channel: try notice.string("channel"), uid: try notice.uid("uid"), role: try notice.requiredRole("role"),
                           expiresAt: try notice.unixTime("expiresAt"), users: users)
        case "userJoined":
            self = .userJoined(try notice.peer())
        case "userOffline":
            let silence = notice.members["silentMs"] == nil ? Duration.zero
                : .milliseconds(try notice.integer("silentMs", in: 0...Int64(UInt32.max)))
            self = .userOffline(uid: try notice.uid("uid"), reason: try notice.code("reason"), silence: silence)
        case "userMedia":
            guard let media = try notice.media() else { throw HubProtocolError("userMedia needs audio and video: each \(HubTrack.names)") }
            self = .userMedia(uid: try notice.uid("uid"), media)
        case "clientRoleChanged":
            self = .clientRoleChanged(old: try notice.requiredRole("oldRole"), new: try notice.requiredRole("newRole"))
        case "tokenPrivilegeWillExpire":
            self = .tokenPrivilegeWillExpire(expiresAt: try notice.unixTime("expiresAt"))
        case "renewTokenResult":
            let expiresAt = notice.members["expiresAt"] == nil ? nil : try notice.unixTime("expiresAt")
            self = .renewTokenResult(try notice.code("result"), expiresAt: expiresAt)
        case "connectionStateChanged":
            let error: AgoraErrorCode? = notice.members["error"] == nil ? nil : try notice.code("error")
            self = .connectionStateChanged(state: try notice.code("state"), reason: try notice.code("reason"), error: error)
        case "error":
            self = .error(try notice.string("message"))
        case let other:
            throw HubProtocolError("no notice of type \"\(other.prefix(40))\"; the types are joined, userJoined, userOffline, "
                                   + "userMedia, clientRoleChanged, tokenPrivilegeWillExpire, renewTokenResult, connectionStateChanged and error")
        }
    }
}

extension HubNotice {
    /// A `joined`, `userJoined` or `userOffline` exactly as the hub writes it (compact, keys sorted, names of printable
    /// ASCII without escapes), read without building a JSON value: in a join storm every client reads one for each
    /// user who joins, and a `joined` that lists up to a channel's every user; the JSON reader was a fifth of a load's
    /// loops. Anything else is nil, for `init(readingJSON:)`,
    /// which reads it (or says what is wrong) the same as ever; what this takes, that reads as the same notice (the
    /// tests hold the two side by side).
    static func presence(inJSON text: String) -> HubNotice? {
        var text = text
        return text.withUTF8 { bytes in
            var reader = PresenceReader(bytes: bytes)
            return reader.notice()
        }
    }
}

/// The bytes of one presence notice, read front to back.
private struct PresenceReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var at = 0

    mutating func notice() -> HubNotice? {
        if take(#"{"channel":""#) { return joined() }
        if take(#"{"account":""#) {
            guard let account = plainString(), take(#","type":"userJoined","uid":"#), let uid = number(upTo: UInt64(UInt32.max)),
                  take("}"), at == bytes.count else { return nil }
            return .userJoined(HubPeer(uid: UInt32(uid), account: account))
        }
        if take(#"{"type":"userJoined","uid":"#) {
            guard let uid = number(upTo: UInt64(UInt32.max)), take("}"), at == bytes.count else { return nil }
            return .userJoined(HubPeer(uid: UInt32(uid), account: nil))
        }
        if take(#"{"reason":""#) {
            guard let name = plainString(), take(#","reasonCode":"#), let code = number(upTo: UInt64(Int32.max)),
                  take(#","type":"userOffline","uid":"#), let uid = number(upTo: UInt64(UInt32.max)), take("}"), at == bytes.count,
                  let reason = AgoraUserOfflineReason(rawValue: Int(code)), reason.name == name else { return nil }
            return .userOffline(uid: UInt32(uid), reason: reason)
        }
        return nil
    }

    /// A `joined` after its `{"channel":"`: it lists every broadcaster in the channel, so a storm's are long.
    mutating func joined() -> HubNotice? {
        guard let channel = plainString(), take(#","expiresAt":"#), let expiresAt = number(upTo: UInt64(UInt32.max)),
              take(#","role":""#), let name = plainString(), let role = AgoraClientRole(name: name),
              take(#","type":"joined","uid":"#), let uid = number(upTo: UInt64(UInt32.max)), take(#","users":["#) else { return nil }
        var users: [HubPeer] = []
        if !take("]") {
            repeat {
                var account: String?
                if take(#"{"account":""#) {
                    guard let text = plainString(), take(#","uid":"#) else { return nil }
                    account = text
                } else {
                    guard take(#"{"uid":"#) else { return nil }
                }
                guard let peer = number(upTo: UInt64(UInt32.max)), take("}") else { return nil }
                users.append(HubPeer(uid: UInt32(peer), account: account))
            } while take(",")
            guard take("]") else { return nil }
        }
        guard take("}"), at == bytes.count else { return nil }
        return .joined(channel: channel, uid: UInt32(uid), role: role, expiresAt: Int64(expiresAt), users: users)
    }

    /// Moves past `literal` if the bytes go on with it.
    mutating func take(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - at >= count else { return false }
        let start = literal.utf8Start
        for index in 0..<count where bytes[at + index] != start[index] { return false }
        at += count
        return true
    }

    /// A string's characters up to its closing quote, when each is printable ASCII and none is escaped.
    mutating func plainString() -> String? {
        let start = at
        while at < bytes.count {
            let byte = bytes[at]
            if byte == UInt8(ascii: "\"") {
                defer { at += 1 }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
            }
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
            at += 1
        }
        return nil
    }

    /// A whole number as JSON writes it (no sign, no leading zero, no fraction or exponent), at most `limit`.
    mutating func number(upTo limit: UInt64) -> UInt64? {
        let start = at
        var value: UInt64 = 0
        while at < bytes.count, bytes[at] >= UInt8(ascii: "0"), bytes[at] <= UInt8(ascii: "9"), at - start < 11 {
            value = value * 10 + UInt64(bytes[at] - UInt8(ascii: "0"))
            at += 1
        }
        guard at > start, at - start <= 10, bytes[start] != UInt8(ascii: "0") || at - start == 1, value <= limit else { return nil }
        return value
    }
}

extension Fields {
    /// A user as a notice names it: a uid, and the account it joined with if any.
    fileprivate func peer() throws(HubProtocolError) -> HubPeer {
        HubPeer(uid: try uid("uid"), account: try optionalString("account"))
    }

    /// An Agora enum value as two members: `name` (its name) and `nameCode` (its number), which must be one of
    /// `Code`'s and agree; a value this client does not know is refused, never taken for a near one.
    fileprivate func code<Code: AgoraCode>(_ name: String) throws(HubProtocolError) -> Code {
        let number = try integer(name + "Code", in: Int64(Int32.min)...Int64(Int32.max))
        let text = try string(name)
        guard let code = Code(rawValue: Int(number)) else {
            throw HubProtocolError("\(name)Code \(number) is not one of Agora's \(Code.self) values that this client knows "
                                   + "(\(Code.namesAndNumbers)); the hub and the client disagree on the protocol")
        }
        guard code.name == text else {
            throw HubProtocolError("\(name) \"\(text.prefix(40))\" does not name \(name)Code \(number), which is \(code.name)")
        }
        return code
    }

    /// Unix seconds, as tokens hold them.
    fileprivate func unixTime(_ name: String) throws(HubProtocolError) -> Int64 {
        try integer(name, in: 0...Int64(UInt32.max))
    }
}
