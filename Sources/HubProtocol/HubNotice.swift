import AgoraVocabulary
import Timers

/// Another user in the channel, as the others see them.
public struct HubPeer: Equatable, Sendable {
    /// The most users of a channel a client announces (the engine's `didJoinedOfUid`, the Web SDK's `user-joined`): those
    /// the hub names first; it may name more, a screen could not show them, and each costs callbacks.
    public static let announcedLimit = 128

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
    /// Another user is out: `silence` is how long the hub had heard nothing from it, when that is why it was dropped
    /// (`silentMs`), so the others count Agora's 20 s from its last packet, not from the hub's word.
    case userOffline(uid: UInt32, reason: AgoraUserOfflineReason, silence: Duration = .zero)
    /// A broadcaster's audio and video states: after its `userJoined` (and after `joined`, for those present) when it tells
    /// them, and when they change; sent only to clients that tell theirs (older ones would not read it).
    case userMedia(uid: UInt32, HubMedia)
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
        var object: HubJSON.Object
        switch self {
        case .joined(let channel, let uid, let role, let expiresAt, let users):
            object = ["type": "joined", "channel": .string(channel), "uid": .integer(Int64(uid)), "role": .string(role.name),
                      "expiresAt": .integer(expiresAt), "users": .peers(users)]
        case .userJoined(let peer):
            object = ["type": "userJoined", "uid": .integer(Int64(peer.uid))]
            if let account = peer.account { object["account"] = .string(account) }
        case .userOffline(let uid, let reason, let silence):
            object = ["type": "userOffline", "uid": .integer(Int64(uid))]
            Self.add(reason, as: "reason", to: &object)
            if silence > .zero { object["silentMs"] = .integer(silence.wholeMilliseconds) }
        case .userMedia(let uid, let media):
            object = ["type": "userMedia", "uid": .integer(Int64(uid)), "audio": .string(media.audio.rawValue),
                      "video": .string(media.video.rawValue)]
        case .clientRoleChanged(let old, let new):
            object = ["type": "clientRoleChanged", "oldRole": .string(old.name), "newRole": .string(new.name)]
        case .tokenPrivilegeWillExpire(let expiresAt):
            object = ["type": "tokenPrivilegeWillExpire", "expiresAt": .integer(expiresAt)]
        case .renewTokenResult(let code, let expiresAt):
            object = ["type": "renewTokenResult"]
            Self.add(code, as: "result", to: &object)
            if let expiresAt { object["expiresAt"] = .integer(expiresAt) }
        case .connectionStateChanged(let state, let reason, let error):
            object = ["type": "connectionStateChanged"]
            Self.add(state, as: "state", to: &object)
            Self.add(reason, as: "reason", to: &object)
            if let error { Self.add(error, as: "error", to: &object) }
        case .error(let message):
            object = ["type": "error", "message": .string(message)]
        }
        return HubJSON.text(object)
    }

    private static func add(_ code: some AgoraCode, as name: String, to object: inout HubJSON.Object) {
        object[name] = .string(code.name)
        object[name + "Code"] = .integer(Int64(code.rawValue))
    }
}

/// Writes the protocol's JSON objects: compact, keys sorted, strings escaped as RFC 8259 requires and no more.
/// Written by hand, not through `JSONSerialization`: the hub writes a notice for every join, and bridging each
/// dictionary to Foundation's objects was a quarter of its CPU in a join storm (`Docs/benchmarks.md`, "Hub").
enum HubJSON {
    /// An object's members in the order they were set; written with their keys sorted. Not a dictionary: a notice is
    /// written for every join, and hashing its few keys cost more than writing them.
    struct Object: ExpressibleByDictionaryLiteral {
        fileprivate var members: [(key: String, value: Value)]

        init(dictionaryLiteral elements: (String, Value)...) {
            members = elements.map { (key: $0.0, value: $0.1) }
        }

        /// A member's value; setting one that is there replaces it.
        subscript(key: String) -> Value? {
            get { members.first { $0.key == key }?.value }
            set {
                let index = members.firstIndex { $0.key == key }
                switch (index, newValue) {
                case (let index?, let value?): members[index].value = value
                case (let index?, nil): members.remove(at: index)
                case (nil, let value?): members.append((key: key, value: value))
                case (nil, nil): break
                }
            }
        }
    }

    /// What a member holds: nothing else is sent.
    enum Value: ExpressibleByStringLiteral {
        case string(String)
        case integer(Int64)
        /// Users as notices list them: `{"account":…,"uid":…}`, the account only when there is one.
        case peers([HubPeer])

        init(stringLiteral value: String) { self = .string(value) }
    }

    static func text(_ object: Object) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(object, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func write(_ object: Object, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (index, (key, value)) in object.members.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            write(string: key, to: &out)
            out.append(UInt8(ascii: ":"))
            switch value {
            case .string(let text): write(string: text, to: &out)
            case .integer(let number): out += String(number).utf8
            case .peers(let peers):
                out.append(UInt8(ascii: "["))
                for (index, peer) in peers.enumerated() {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    out.append(UInt8(ascii: "{"))
                    if let account = peer.account {
                        write(string: "account", to: &out)
                        out.append(UInt8(ascii: ":"))
                        write(string: account, to: &out)
                        out.append(UInt8(ascii: ","))
                    }
                    write(string: "uid", to: &out)
                    out.append(UInt8(ascii: ":"))
                    out += String(peer.uid).utf8
                    out.append(UInt8(ascii: "}"))
                }
                out.append(UInt8(ascii: "]"))
            }
        }
        out.append(UInt8(ascii: "}"))
    }

    private static func write(string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
