import PrintableText
import Timers

/// Why no token could be had; the words never include a token or a credential.
public enum TokenClientError: Error, Equatable, Sendable, Codable, CustomStringConvertible {
    /// The server could not be reached (connection refused, no route, DNS).
    case transport(String)
    /// No whole answer within the overall deadline; the request was cancelled.
    case timeout(Duration)
    /// 401 or 403: the server refuses the request, with its own error text when it sent one; `sent` says which of
    /// tokencall's options went with it, so that the words name only those.
    case unauthorized(status: Int, message: String?, sent: Sent)
    /// A 403 naming the origin to a request that carried no `Origin` header: the server refuses every client that is
    /// not a browser (agora-token-service with `CORS_ALLOW_ORIGIN` set to a list).
    case originRequired(message: String)
    /// 429 or 503: the server asks to come back later, after `retryAfter` when it says (as asked, not yet capped).
    case rateLimited(status: Int, retryAfter: Duration?)
    /// A redirect tokencall does not follow: to another origin, or one too many.
    case redirected(String)
    /// Another non-2xx status, with the server's own error text when it sent one.
    case server(status: Int, message: String?)
    /// A 404 to the token request from a server that runs (its `GET /ping` answers), with what to do: the request shape
    /// that gets a token there, or that none does.
    case wrongPath(message: String?, hint: String)
    /// A 2xx answer that does not hold a usable token.
    case invalidResponse(String)
    /// A token for another channel, uid or App ID than asked for.
    case wrongAudience(String)
    /// The token had already expired when it arrived.
    case expired(secondsAgo: Int64)
    /// The request shape cannot carry what is asked (a `{uid}` for a user account); no request was sent.
    case unsendable(String)

    public var description: String {
        switch self {
        case .transport(let why): "cannot reach the token server: \(why)"
        case .timeout(let limit): "the token server did not answer within \(limit.secondsText)"
        case .unauthorized, .originRequired:
            refusal.map { refusal in refusal.toDo.map { "\(refusal.said); \($0)" } ?? refusal.said } ?? ""
        case .rateLimited(let status, let asked):
            "the token server is busy (HTTP \(status))" + (asked.map { asked in
                asked > Self.longestWait
                    ? "; it asked for \(asked.secondsText); retrying in \(Self.longestWait.secondsText), the most tokencall waits"
                    : "; it asks to retry in \(asked.secondsText)"
            } ?? "")
        case .redirected(let why):
            "the token server redirected the request: \(why); a token endpoint that redirects is suspicious, "
                + "point the token server's URL at the final endpoint"
        case .server(let status, let message):
            "the token server answered HTTP \(status)" + (message.map { ": \($0.escapedForPrinting)" } ?? "")
        case .wrongPath(let message, let hint):
            "the token server answered HTTP 404" + (message.map { ": \($0.escapedForPrinting)" } ?? "") + "; \(hint)"
        case .invalidResponse(let why): "the token server's answer is not usable: \(why)"
        case .wrongAudience(let why): "the token server sent a token for someone else: \(why)"
        case .expired(let ago): "the token server sent a token that expired \(ago) s ago; check its clock and expiry settings"
        case .unsendable(let why): "tokencall cannot ask for this token: \(why)"
        }
    }

    /// A refusal (401, 403) in two parts: what the server said, and what to do when tokencall can tell (naming an option
    /// only when it was sent); nil for other errors.
    public var refusal: (said: String, toDo: String?)? {
        switch self {
        case .unauthorized(let status, let message, let sent):
            let said = "the token server refused the request (HTTP \(status)" + (message.map { ", \"\($0.escapedForPrinting)\"" } ?? "") + ")"
            if sent.contains(.origin), message?.lowercased().utf8.firstRange(of: "origin".utf8) != nil {
                return (said, "add the origin --origin gives to those it allows (agora-token-service: CORS_ALLOW_ORIGIN)")
            }
            if sent.contains(.bearer) { return (said, "check --auth-bearer") }
            return (status == 401 ? said + "; it asks for a credential, and none was sent" : said, nil)
        case .originRequired(let message):
            return ("the token server refuses every request without an Origin header (HTTP 403, \"\(message.escapedForPrinting)\"), "
                    + "as agora-token-service does when CORS_ALLOW_ORIGIN lists origins, so no native app gets a token",
                    "have it serve requests that carry no Origin (CORS is for browsers; CORS_ALLOW_ORIGIN=* there), or send one with --origin")
        default:
            return nil
        }
    }

    /// The case's name, without what varies between errors of that case (`wrongAudience`, `timeout`): for counting
    /// errors by kind.
    public var kind: String {
        switch self {
        case .transport: "transport"
        case .timeout: "timeout"
        case .unauthorized: "unauthorized"
        case .originRequired: "originRequired"
        case .rateLimited: "rateLimited"
        case .redirected: "redirected"
        case .server: "server"
        case .wrongPath: "wrongPath"
        case .invalidResponse: "invalidResponse"
        case .wrongAudience: "wrongAudience"
        case .expired: "expired"
        case .unsendable: "unsendable"
        }
    }

    /// What went with a refused request that the server may have refused it for.
    public struct Sent: OptionSet, Sendable, Codable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// `Authorization: Bearer`, from `--auth-bearer`.
        public static let bearer = Sent(rawValue: 1)
        /// `Origin`, from `--origin`.
        public static let origin = Sent(rawValue: 2)
    }

    /// The longest Retry-After that is honoured.
    public static let longestWait: Duration = .seconds(3600)

    /// How long the server asked to wait before the next attempt, at most `longestWait`.
    public var requestedWait: Duration? {
        guard case .rateLimited(_, let asked?) = self else { return nil }
        return min(asked, Self.longestWait)
    }

    /// An answer longer than `limit` bytes: `bytes` long, or more when its length is not known.
    static func answerTooLong(bytes: Int?, limit: Int) -> TokenClientError {
        .invalidResponse("it is \(bytes.map { "\($0) bytes" } ?? "longer than \(limit) bytes"); at most \(limit) are read, "
            + "is the URL the token endpoint?")
    }

    /// Whether it is a sound token for the wrong call (another audience, or expired) rather than no token at all.
    var isMistake: Bool {
        switch self {
        case .wrongAudience, .expired: true
        default: false
        }
    }

    /// Whether the server answered the request (a refusal, a status, an answer without a usable token), rather than the
    /// request failing on its way (unreachable, no answer in time, never sent).
    public var isAnswer: Bool {
        switch self {
        case .transport, .timeout, .unsendable: false
        default: true
        }
    }

    /// Whether trying again later can help: not when the credential is refused or the request cannot be made
    /// (those need a person).
    public var isRetryable: Bool {
        switch self {
        case .unauthorized, .originRequired, .unsendable: false
        default: true
        }
    }
}

extension Duration {
    /// "1.5 s", "10 s".
    var secondsText: String {
        let (seconds, millis) = (wholeMilliseconds / 1000, wholeMilliseconds % 1000)
        return millis == 0 ? "\(seconds) s" : "\(seconds).\(String(format3(millis))) s"
    }

    private func format3(_ millis: Int64) -> String {
        let text = String(millis)
        let padded = String(repeating: "0", count: max(0, 3 - text.count)) + text
        var trimmed = padded
        while trimmed.hasSuffix("0") { trimmed.removeLast() }
        return trimmed
    }
}
