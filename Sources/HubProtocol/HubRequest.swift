import AccessToken
import AgoraVocabulary
import JSON

/// What a client asks to join with.
public struct HubJoin: Equatable, Sendable {
    /// When given, it must be the hub's App ID.
    public var appId: String?
    public var channel: String
    /// Who joins: a uid (0 for one the hub assigns) or a user account.
    public var user: RTCUser
    public var token: String
    public var role: AgoraClientRole
    /// The client's audio and video states, given by a client that tells them (and hears the others'); nil for one that
    /// does not: it is taken to publish `HubMedia.untold` and hears no `userMedia`.
    public var media: HubMedia?

    public init(appId: String? = nil, channel: String, user: RTCUser, token: String, role: AgoraClientRole = .broadcaster,
                media: HubMedia? = nil) {
        self.appId = appId
        self.channel = channel
        self.user = user
        self.token = token
        self.role = role
        self.media = media
    }
}

/// A text message a client sends the hub (`Docs/hub-protocol.md`).
public enum HubRequest: Equatable, Sendable {
    case join(HubJoin)
    case renew(token: String)
    case setRole(AgoraClientRole)
    case leave
    /// The client's audio and video states now (`muteLocalAudioStream`, a track published or muted).
    case media(HubMedia)
    /// Nothing to do: a browser cannot send WebSocket pings, so it sends this to show it is there.
    case ping
}

/// A message that is not one of the hub's, and what is wrong with it.
public struct HubProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension HubRequest {
    /// Reads one request from a text message's JSON; every field is checked and a wrong one named.
    public init(json text: String) throws(HubProtocolError) {
        let request = try Fields(json: text, of: "a request")
        let fields = request.members
        switch try request.string("type") {
        case "join":
            let user: RTCUser
            switch (fields["uid"], fields["account"]) {
            case (.some, .some): throw HubProtocolError("join takes a uid or an account, not both")
            case (nil, .some): user = .account(try request.string("account"))
            case (.some, nil): user = .uid(try request.uid("uid"))
            case (nil, nil): throw HubProtocolError("join needs a uid (0 for one the hub assigns) or an account")
            }
            self = .join(HubJoin(appId: try request.optionalString("appId"), channel: try request.string("channel"), user: user,
                                 token: try request.string("token"), role: try request.role() ?? .broadcaster,
                                 media: try request.media()))
        case "renew":
            self = .renew(token: try request.string("token"))
        case "setRole":
            guard let role = try request.role() else { throw HubProtocolError("setRole needs a role: broadcaster or audience") }
            self = .setRole(role)
        case "leave":
            self = .leave
        case "media":
            guard let media = try request.media() else { throw HubProtocolError("media needs audio and video: each \(HubTrack.names)") }
            self = .media(media)
        case "ping":
            self = .ping
        case let other:
            throw HubProtocolError("no request of type \"\(other.prefix(40))\"; the types are join, renew, setRole, leave, media and ping")
        }
    }
}

extension HubRequest {
    /// The request as a text frame's JSON, which `init(json:)` reads back as itself.
    public var json: String {
        var object: HubJSON.Object
        switch self {
        case .join(let join):
            object = ["type": "join", "channel": .string(join.channel), "token": .string(join.token), "role": .string(join.role.name)]
            switch join.user {
            case .uid(let uid): object["uid"] = .integer(Int64(uid))
            case .account(let account): object["account"] = .string(account)
            }
            if let appId = join.appId { object["appId"] = .string(appId) }
            if let media = join.media { (object["audio"], object["video"]) = (.string(media.audio.rawValue), .string(media.video.rawValue)) }
        case .renew(let token): object = ["type": "renew", "token": .string(token)]
        case .setRole(let role): object = ["type": "setRole", "role": .string(role.name)]
        case .leave: object = ["type": "leave"]
        case .media(let media): object = ["type": "media", "audio": .string(media.audio.rawValue), "video": .string(media.video.rawValue)]
        case .ping: object = ["type": "ping"]
        }
        return HubJSON.text(object)
    }
}
