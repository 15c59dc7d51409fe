import AccessToken

/// Why Agora's network refuses a token, in each of the ways Agora reports it; `check` is the one rule set the
/// engine and the hub both apply.
public struct TokenRejection: Error, Equatable, Sendable {
    public let state: AgoraConnectionState
    public let reason: AgoraConnectionChangedReason
    public let error: AgoraErrorCode
    public let renewCode: AgoraRenewTokenErrorCode

    public static let invalidToken = TokenRejection(state: .disconnected, reason: .reasonInvalidToken, error: .invalidToken, renewCode: .invalidToken)
    public static let wrongChannel = TokenRejection(state: .disconnected, reason: .reasonInvalidToken, error: .invalidToken, renewCode: .invalidChannelName)
    public static let expired = TokenRejection(state: .failed, reason: .reasonTokenExpired, error: .tokenExpired, renewCode: .tokenExpired)
    public static let invalidAppId = TokenRejection(state: .failed, reason: .reasonInvalidAppId, error: .invalidAppId, renewCode: .failure)
    /// A token built for another App ID is an invalid token (Agora's token FAQ).
    public static let otherAppId = TokenRejection(state: .disconnected, reason: .reasonInvalidToken, error: .invalidToken, renewCode: .inconsistentAppId)
    /// Refused before the token is read: a channel name or user account Agora does not accept.
    public static let invalidChannelName = TokenRejection(state: .failed, reason: .reasonInvalidChannelName, error: .invalidChannelId, renewCode: .invalidChannelName)
    public static let invalidAccount = TokenRejection(state: .failed, reason: .reasonJoinFailed, error: .invalidUserAccount, renewCode: .failure)
    /// Every way a token is refused.
    public static let all: [TokenRejection] = [.invalidToken, .wrongChannel, .expired, .invalidAppId, .otherAppId, .invalidChannelName,
                                               .invalidAccount]

    /// Checks a token as Agora's network does: App ID, signature (when the certificate is known), expiry, join
    /// privilege, channel and user. Returns the parsed token, or nil for no token where none is needed (no
    /// certificate: testing mode).
    public static func check(_ token: String?, appId: String, appCertificate: String?, channel: String, user: RTCUser,
                             unixNow: Double) -> Result<AgoraToken?, TokenRejection> {
        guard AgoraID.isValid(appId) else { return .failure(.invalidAppId) }
        guard let token, !token.isEmpty else { return appCertificate == nil ? .success(nil) : .failure(.invalidToken) }
        let parsed: AgoraToken
        do { parsed = try AgoraToken(parsing: token) } catch { return .failure(.invalidToken) }
        let check = TokenCheck(appID: appId, appCertificate: appCertificate, channel: channel, user: user)
        do throws(TokenError) {
            try parsed.validate(check, now: Int64(unixNow.rounded(.down)))
        } catch {
            switch error {
            case .appIDMismatch: return .failure(.otherAppId)
            case .expired, .joinPrivilegeExpired: return .failure(.expired)
            case .channelMismatch, .crcMismatch(field: "channel"): return .failure(.wrongChannel)
            default: return .failure(.invalidToken)
            }
        }
        return .success(parsed)
    }
}
