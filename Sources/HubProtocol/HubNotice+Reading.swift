import AgoraVocabulary
import JSON

extension HubNotice {
    /// Reads one notice from a text message's JSON as a client receives it; every member is checked and a wrong
    /// one named, and a `type` that is not one of the hub's is an error, as is a code that is not one of Agora's.
    public init(json text: String) throws(HubProtocolError) {
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
            self = .userOffline(uid: try notice.uid("uid"), reason: try notice.code("reason"))
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
                                   + "clientRoleChanged, tokenPrivilegeWillExpire, renewTokenResult, connectionStateChanged and error")
        }
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
