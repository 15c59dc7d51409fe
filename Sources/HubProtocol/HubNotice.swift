import AgoraVocabulary
import Foundation

/// Another user in the channel, as the others see them.
public struct HubPeer: Equatable, Sendable {
    public let uid: UInt32
    /// The account it joined with, if it joined with one.
    public let account: String?
    public init(uid: UInt32, account: String?) {
        self.uid = uid
        self.account = account
    }
}

/// A text message the hub sends a client (`Docs/hub-protocol.md`); the names are the Agora callbacks they become,
/// and Agora's values travel as `name` and `nameCode` members, read back only when they are one of Agora's.
public enum HubNotice: Equatable, Sendable {
    /// The join succeeded: the uid (assigned when 0 was asked for), when the token runs out, the broadcasters present.
    case joined(channel: String, uid: UInt32, role: AgoraClientRole, expiresAt: Int64, users: [HubPeer])
    case userJoined(HubPeer)
    case userOffline(uid: UInt32, reason: AgoraUserOfflineReason)
    case clientRoleChanged(old: AgoraClientRole, new: AgoraClientRole)
    case tokenPrivilegeWillExpire(expiresAt: Int64)
    /// The answer to `renew`; `expiresAt` is the new token's end when it was taken.
    case renewTokenResult(AgoraRenewTokenErrorCode, expiresAt: Int64?)
    /// The client is out of the channel, or was never let in: refused, left, expired, pushed out.
    case connectionStateChanged(state: AgoraConnectionState, reason: AgoraConnectionChangedReason, error: AgoraErrorCode?)
    /// A request the hub could not read, or cannot do now; the connection stays open.
    case error(String)

    /// The message as a JSON text frame's content.
    public var json: String {
        var object: [String: Any]
        switch self {
        case .joined(let channel, let uid, let role, let expiresAt, let users):
            object = ["type": "joined", "channel": channel, "uid": uid, "role": role.name, "expiresAt": expiresAt,
                      "users": users.map(Self.fields)]
        case .userJoined(let peer):
            object = Self.fields(peer)
            object["type"] = "userJoined"
        case .userOffline(let uid, let reason):
            object = ["type": "userOffline", "uid": uid]
            Self.add(reason, as: "reason", to: &object)
        case .clientRoleChanged(let old, let new):
            object = ["type": "clientRoleChanged", "oldRole": old.name, "newRole": new.name]
        case .tokenPrivilegeWillExpire(let expiresAt):
            object = ["type": "tokenPrivilegeWillExpire", "expiresAt": expiresAt]
        case .renewTokenResult(let code, let expiresAt):
            object = ["type": "renewTokenResult"]
            Self.add(code, as: "result", to: &object)
            if let expiresAt { object["expiresAt"] = expiresAt }
        case .connectionStateChanged(let state, let reason, let error):
            object = ["type": "connectionStateChanged"]
            Self.add(state, as: "state", to: &object)
            Self.add(reason, as: "reason", to: &object)
            if let error { Self.add(error, as: "error", to: &object) }
        case .error(let message):
            object = ["type": "error", "message": message]
        }
        return HubJSON.text(object)
    }

    private static func fields(_ peer: HubPeer) -> [String: Any] {
        var object: [String: Any] = ["uid": peer.uid]
        if let account = peer.account { object["account"] = account }
        return object
    }

    private static func add(_ code: some AgoraCode, as name: String, to object: inout [String: Any]) {
        object[name] = code.name
        object[name + "Code"] = code.rawValue
    }
}

/// Writes the protocol's JSON objects.
enum HubJSON {
    /// One object as compact JSON with sorted keys; the values are strings, numbers and arrays of objects, which
    /// always encode.
    static func text(_ object: [String: Any]) -> String {
        let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
