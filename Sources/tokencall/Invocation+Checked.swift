import AccessToken
import Arguments
import TokenClient

/// Options several commands read the same way, checked once here.
extension Invocation {
    /// `--channel`, within Agora's rules for channel names.
    func channel() throws(UsageError) -> String {
        let channel: String = string("channel")
        do throws(TokenError) { try AgoraID.validateChannelName(channel) } catch { throw self.error("--channel: \(error.description)") }
        return channel
    }

    /// The request `--token-request`, `--token-field` and `--expires-field` describe, for `join` and `doctor`: the
    /// one place they are read.
    func tokenRequestShape() throws(UsageError) -> HTTPTokenProvider.Shape {
        var shape: HTTPTokenProvider.Shape
        do throws(RequestTemplate.Problem) { shape = try .init(parsing: string("token-request")) } catch let problem {
            throw error("--token-request: \(problem)")
        }
        for (name, field) in [("token-field", \HTTPTokenProvider.Shape.tokenField), ("expires-field", \.expiresField)] {
            guard let text = string(name) else { continue }
            do throws(FieldPath.Problem) { shape[keyPath: field] = try FieldPath(parsing: text) } catch let problem {
                throw error("--\(name): \(problem)")
            }
        }
        return shape
    }

    /// Refuses an `--app-id` or `--app-certificate` that is not 32 hex characters.
    func checkCredentials() throws(UsageError) {
        if let value = string("app-id"), !AgoraID.isValid(value) {
            throw error(TokenError.invalidAppID(length: value.utf8.count).description)
        }
        if let value = string("app-certificate"), !AgoraID.isValid(value) {
            throw error(TokenError.invalidAppCertificate(length: value.utf8.count).description)
        }
    }

    /// Refuses an `--auth-bearer` that is empty or has spaces: sent as `Authorization: Bearer <credential>`, a space
    /// would make it two words, which servers refuse.
    func checkBearer() throws(UsageError) {
        guard let bearer = string("auth-bearer") else { return }
        if bearer.isEmpty { throw error("--auth-bearer needs a credential; it is empty") }
        if bearer.contains(where: \.isWhitespace) { throw error("--auth-bearer needs a credential without spaces") }
    }
}
