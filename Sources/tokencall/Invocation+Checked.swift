import TLS
import AccessToken
import Arguments
import Foundation
import PrintableText
import TokenClient

/// Options several commands read the same way, checked once here.
extension Invocation {
    /// `--channel`, within Agora's rules for channel names.
    func channel() throws(UsageError) -> String {
        let channel = self[CallOptions.channel]
        do throws(TokenError) { try AgoraID.validateChannelName(channel) } catch { throw self.error("--channel: \(error.description)") }
        return channel
    }

    /// `text` as a token server's URL, http:// or https:// with a host; `what` names it in the error (`--token-url`).
    func tokenServerURL(_ text: String, as what: String) throws(UsageError) -> URL {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw error("\(what) must be an http:// or https:// URL with a host, not \"\(text.urlWithoutCredentials.escapedForPrinting)\"")
        }
        return url
    }

    /// `--token-url`, checked by `tokenServerURL`; nil when not given.
    func tokenURL() throws(UsageError) -> URL? {
        guard let text = self[TokenSourceOptions.tokenURL] else { return nil }
        return try tokenServerURL(text, as: described(TokenSourceOptions.tokenURL))
    }

    /// `--ca-file`: the CA certificates an https:// token server's certificate is checked against; the system's without it.
    func trust() throws(UsageError) -> TLSTrust {
        guard let path = self[TrustOptions.caFile] else { return .system }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw error("--ca-file \(path.escapedForPrinting) cannot be read; give a PEM file of CA certificates")
        }
        return .file(path)
    }

    /// `--request-timeout`: one token request's overall deadline.
    func requestTimeout() throws(UsageError) -> Duration {
        .seconds(self[TokenSourceOptions.requestTimeout])
    }

    /// The user from --uid or --account (at most one of them); nil when neither is given nor has a default.
    func user() throws(UsageError) -> RTCUser? {
        if has(UserOptions.uid), has(CallOptions.account) { throw error("give --uid or --account, not both") }
        if let account = self[CallOptions.account] {
            do throws(TokenError) { try AgoraID.validateAccount(account) } catch { throw self.error("--account: \(error.description)") }
            return .account(account)
        }
        guard let text = self[UserOptions.uid] else { return nil }
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

    /// The request `--token-request`, `--token-field` and `--expires-field` describe, for `join` and `doctor`: the
    /// one place they are read.
    func tokenRequestShape() throws(UsageError) -> HTTPTokenProvider.Shape {
        var shape: HTTPTokenProvider.Shape
        do throws(RequestTemplate.Problem) { shape = try .init(parsing: self[TokenSourceOptions.tokenRequest]) } catch let problem {
            throw error("--token-request: \(problem)")
        }
        for (key, field) in [(TokenSourceOptions.tokenField, \HTTPTokenProvider.Shape.tokenField), (TokenSourceOptions.expiresField, \.expiresField)] {
            guard let text = self[key] else { continue }
            do throws(FieldPath.Problem) { shape[keyPath: field] = try FieldPath(parsing: text) } catch let problem {
                throw error("--\(key.option.name): \(problem)")
            }
        }
        if shape.expiresField?.isWhole == true || (shape.tokenField?.isWhole == true && shape.expiresField != nil) {
            throw error("--expires-field names a JSON field beside the token; an answer that is the token alone (--token-field .) has none")
        }
        return shape
    }

    /// Refuses a `--token-lifetime` that `shape` does not send (it has no `{expire}`): the server decides then.
    func checkLifetime(sentBy shape: HTTPTokenProvider.Shape) throws(UsageError) {
        guard has(CallOptions.tokenLifetime), !shape.asksForLifetime else { return }
        throw error("--token-lifetime reaches your server only through {expire}, which --token-request \(shape) does not send; "
            + "your server decides")
    }

    /// `--origin` as a browser sends it: scheme, host and port, nothing else; nil when not given.
    func origin() throws(UsageError) -> String? {
        guard let text = self[TokenSourceOptions.origin] else { return nil }
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil, url.path.isEmpty,
              url.query == nil, url.fragment == nil, url.user == nil, !text.hasSuffix("/") else {
            throw error("--origin must be an origin as a browser sends it, such as https://app.example or http://localhost:3000, "
                        + "not \"\(text.escapedForPrinting)\"")
        }
        return text
    }

    /// Refuses an `--app-id` or `--app-certificate` that is not 32 hex characters.
    func checkCredentials() throws(UsageError) {
        if let value = self[TokenSourceOptions.appID], !AgoraID.isValid(value) {
            throw error(TokenError.invalidAppID(length: value.utf8.count).description)
        }
        if let value = self[TokenSourceOptions.appCertificate], !AgoraID.isValid(value) {
            throw error(TokenError.invalidAppCertificate(length: value.utf8.count).description)
        }
    }

    /// Refuses an `--auth-bearer` that is empty or has spaces: sent as `Authorization: Bearer <credential>`, a space
    /// would make it two words, which servers refuse.
    func checkBearer() throws(UsageError) {
        guard let bearer = self[TokenSourceOptions.authBearer] else { return }
        if bearer.isEmpty { throw error("--auth-bearer needs a credential; it is empty") }
        if bearer.contains(where: \.isWhitespace) { throw error("--auth-bearer needs a credential without spaces") }
    }
}
