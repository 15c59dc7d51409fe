/// What is wrong with a token, a credential or a request to build one.
public enum TokenError: Error, Equatable, Sendable {
    case invalidAppID(length: Int)
    case invalidAppCertificate(length: Int)
    case emptyToken
    case unknownVersion(prefix: String)
    case badBase64
    case badCompression
    case inflatedTooLarge(limit: Int)
    case truncated(field: String)
    case trailingBytes(count: Int)
    case noServices
    case invalidChannelName(String)
    case invalidAccount(String)
    case privilegeTooLong(seconds: UInt32)
    case appIDMismatch(token: String, expected: String)
    case signatureMismatch
    case expired(expiredAt: Int64, secondsAgo: Int64)
    case noRTCService
    case noJoinPrivilege
    case joinPrivilegeExpired(expiredAt: Int64, secondsAgo: Int64)
    case channelMismatch(token: String, expected: String)
    /// The token's uid field ("" never: it fits any user) and the user asked for.
    case uidMismatch(token: String, expected: RTCUser)
    case crcMismatch(field: String)
}

extension TokenError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .invalidAppID(let length):
            "the App ID must be 32 hex characters (got \(length) characters or a non-hex one); copy it from Agora Console"
        case .invalidAppCertificate(let length):
            "the App Certificate must be 32 hex characters (got \(length) characters or a non-hex one); copy the primary certificate from Agora Console"
        case .emptyToken:
            "the token is empty"
        case .unknownVersion(let prefix):
            "the token starts with \"\(prefix)\", not a known version (007 is AccessToken2, 006 the older AccessToken)"
        case .badBase64:
            "the token's body is not valid base64; check that nothing (a URL decoder turning '+' into ' ', a line break) changed it in transit"
        case .badCompression:
            "the token's body is not a valid zlib stream; the token was cut short or altered"
        case .inflatedTooLarge(let limit):
            "the token inflates to more than \(limit) bytes; no real token is that large"
        case .truncated(let field):
            "the token ends before its \(field); it was cut short or altered"
        case .trailingBytes(let count):
            "the token carries \(count) unexpected bytes after its last field"
        case .noServices:
            "a token needs at least one service"
        case .invalidChannelName(let why):
            "invalid channel name: \(why)"
        case .invalidAccount(let why):
            "invalid user account: \(why)"
        case .privilegeTooLong(let seconds):
            "a privilege may last 24 h (86400 s) at most, not \(seconds) s"
        case .appIDMismatch(let token, let expected):
            "the token was built for App ID \(token), not \(expected)"
        case .signatureMismatch:
            "the signature does not match: the token was built with another App Certificate, or altered"
        case .expired(_, let ago):
            "the token expired \(ago) s ago; fetch a new one"
        case .noRTCService:
            "the token grants no RTC service, so it cannot join a channel"
        case .noJoinPrivilege:
            "the token has no joinChannel privilege"
        case .joinPrivilegeExpired(_, let ago):
            "the token's joinChannel privilege expired \(ago) s ago; fetch a new token"
        case .channelMismatch(let token, let expected):
            "the token was built for channel \"\(token)\", not \"\(expected)\""
        case .uidMismatch(let token, let expected):
            Self.userMismatch(token: token, joining: expected)
        case .crcMismatch(let field):
            "the token's \(field) checksum does not match the one given"
        }
    }
}

extension TokenError {
    /// Why a token whose uid field is `field` does not fit a join as `user`, telling an integer uid from a string
    /// account (the 110 users meet most), and what to do.
    static func userMismatch(token field: String, joining user: RTCUser) -> String {
        switch (user, RTCUser(tokenField: field)) {
        case (.uid, .account("0")):
            "the token is for the account \"0\" (a string), which is not the wildcard: build it with the integer uid 0 to allow any uid "
                + "(a server that passes the uid on as text makes this)"
        case (.uid(0), let holder):
            "you join with uid 0, so the SDK picks a random uid, but the token is only for \(holder.map(String.init(describing:)) ?? "any uid"): "
                + "join as that user, or build the token with uid 0 (any uid)"
        case (.uid, .uid?):
            "the token was built for uid \(field), but you join as \(user): build the token for the uid you join with"
        case (.uid, _):
            "the token was built for the user account \"\(field)\" (a string), but you join with the integer \(user): "
                + "join with joinChannel(byUserAccount:), or build the token with the integer uid"
        case (.account(let account), .uid?):
            "the token was built for the integer uid \(field), but you join with the account \"\(account)\": "
                + "join with joinChannel(byToken:…uid:), or build the token with buildTokenWithUserAccount"
        case (.account(let account), _):
            "the token was built for the account \"\(field)\", not \"\(account)\""
        }
    }
}
