import AccessToken

extension TokenRoutes {
    /// What a token is signed with and for, before a mistake changes it.
    struct TokenParameters {
        var appID: String
        var channel: String
        var user: RTCUser
        var role: RTCRole
        var lifetime: UInt32
        var issuedAt: UInt32
    }

    /// How long ago an `expired` token ran out.
    static let expiredAgo: UInt32 = 60

    /// `parameters` changed by `mistake` (`stale` changes nothing here: it is a token handed out before).
    static func misconfigured(_ parameters: TokenParameters, by mistake: TokenMistake?) -> TokenParameters {
        var wrong = parameters
        switch mistake {
        case .wrongUid?:
            wrong.user = switch parameters.user {
            case .uid(let uid): .uid(uid == 0 || uid == .max ? 1 : uid + 1)
            case .account(let account): .account(account.utf8.count <= 249 ? account + "-other" : "other")
            }
        case .wrongChannel?:
            wrong.channel = parameters.channel.utf8.count <= 57 ? parameters.channel + "-other" : "other"
        case .wrongApp?:
            wrong.appID = (parameters.appID.hasPrefix("0") ? "1" : "0") + parameters.appID.dropFirst()
        case .expired?:
            let back = UInt64(parameters.lifetime) + UInt64(expiredAgo)
            wrong.issuedAt = UInt32(clamping: max(0, Int64(parameters.issuedAt) - Int64(back)))
        case .stale?, nil:
            break
        }
        return wrong
    }
}
