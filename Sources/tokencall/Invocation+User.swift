import AccessToken
import Arguments

extension Invocation {
    /// The user from --uid or --account (at most one of them); nil when neither is given nor has a default.
    func user() throws(UsageError) -> RTCUser? {
        if has("uid"), has("account") { throw error("give --uid or --account, not both") }
        if let account = string("account") {
            do throws(TokenError) { try AgoraID.validateAccount(account) } catch { throw self.error("--account: \(error.description)") }
            return .account(account)
        }
        guard let text = string("uid") else { return nil }
        guard let uid = UInt32(text) else {
            let hint = Int64(text) != nil || text.allSatisfy(\.isNumber)
                ? "Agora uids are 32-bit unsigned" : "for a string user account use --account"
            throw error("--uid must be an integer from 0 to 4294967295, not \"\(text)\" (\(hint))")
        }
        return .uid(uid)
    }

    /// The user from --uid or --account, one of which must be given (or default).
    func requiredUser() throws(UsageError) -> RTCUser {
        guard let user = try user() else { throw error("give --uid N or --account NAME") }
        return user
    }
}
