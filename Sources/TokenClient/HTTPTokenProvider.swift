import AccessToken
import Foundation
import HTTP1
import JSON

/// Fetches tokens over HTTP in the request shape of the server a user runs, and accepts a token only
/// when it is an Agora token for what was asked and not yet expired.
public struct HTTPTokenProvider: TokenProvider {
    /// Answers larger than this are refused.
    public static let bodyLimit = 64 * 1024
    /// Tokens are trusted for 24 h at most, whatever they say.
    public static let longestLifetime: Int64 = 86_400
    /// An expiry field at or above this (2001-09-09) is a unix time, below it a lifetime in seconds.
    public static let unixTimeFloor: Int64 = 1_000_000_000
    /// Where an answer holds the token when no `--token-field` says: the first of these JSON members it has.
    public static let tokenFields = ["token", "rtcToken"]
    /// Where an answer holds the token's lifetime or expiry when no `--expires-field` says.
    public static let expiresField = "expiresIn"

    public let url: URL
    public let shape: Shape
    /// The lifetime a shape with `{expire}` asks for, in seconds.
    public let requestedLifetime: UInt32
    let bearer: String?
    /// Sent as `Origin` on every request, as a browser app at that origin sends it.
    let origin: String?
    let transport: any HTTPTransport
    private let unixTime: @Sendable () -> Double
    /// Hands over a token for someone else, or already expired, with what is wrong in `FetchedToken.flaw`, instead of
    /// refusing it: for the app's own server, whose mistakes are made on purpose for the engine to answer.
    private let handsOverMistakes: Bool

    /// `url` is the server: the shape's path is added to its path, except that a shape whose one endpoint is named
    /// (`fetch`, `getToken`, `agora-token-service`) takes a URL with a path as that endpoint.
    /// `requestedLifetime` defaults to an hour, what the community servers give when asked for none.
    public init(url: URL, shape: Shape = .fetch, requestedLifetime: UInt32 = 3600, bearer: String? = nil, origin: String? = nil,
                transport: any HTTPTransport = LoopHTTPTransport(), handsOverMistakes: Bool = false,
                unixTime: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.url = url
        self.shape = shape
        self.requestedLifetime = requestedLifetime
        self.bearer = bearer
        self.origin = origin
        self.transport = transport
        self.handsOverMistakes = handsOverMistakes
        self.unixTime = unixTime
    }

    public func fetchToken(for request: TokenRequest) async throws -> FetchedToken {
        let startedAt = unixTime()
        let sent = try httpRequest(for: request)
        let (reply, url): (HTTPReply, URL)
        do {
            (reply, url) = try await transport.send(sent, bodyLimit: Self.bodyLimit)
        } catch let error as TokenClientError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw TokenClientError.transport(Self.words(for: error))
        }
        let accepted = Result { () throws(TokenClientError) in try accept(reply, for: request, startedAt: startedAt) }
        if case .failure(.server(status: 404, let message)) = accepted { throw await notFound(message, for: request) }
        var fetched = try accepted.get()
        if url.path != sent.url?.path { fetched.redirectedTo = String(url.path.prefix(200)) }
        return fetched
    }

    // MARK: Request

    /// The HTTP request this provider sends for `request`, in its shape.
    public func httpRequest(for request: TokenRequest) throws(TokenClientError) -> HTTPRequest {
        let user: RequestTemplate.Values.User = switch request.user {
        case .uid(let uid): .uid(uid)
        case .account(let account): .account(account)
        }
        let filled: RequestTemplate.Filled
        do {
            filled = try shape.template.filled(with: .init(channel: request.channel, user: user, publisher: request.role == .publisher,
                                                            expire: requestedLifetime))
        } catch {
            throw .unsendable(error.description)
        }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        let basePath = components.percentEncodedPath
        if !(shape.urlMayBeEndpoint && !basePath.isEmpty && basePath != "/") {
            components.percentEncodedPath = (basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath) + filled.path
            if let query = filled.query {
                components.percentEncodedQuery = [components.percentEncodedQuery, query].compactMap { $0 }.joined(separator: "&")
            }
        }
        var http = HTTPRequest(method: filled.method.rawValue, url: components.url!)
        if let body = filled.body {
            http.body = Array(body)
            http.fields.append("Content-Type", "application/json")
        }
        http.fields.append("Accept", "application/json")
        http.fields.append("Cache-Control", "no-store")
        if let bearer { http.fields.append("Authorization", "Bearer \(bearer)") }
        if let origin { http.fields.append("Origin", origin) }
        return http
    }

    // MARK: Answer

    /// A token answer as the server wrote it, before it is checked against what was asked.
    public struct Answer: Sendable, Equatable {
        /// The raw token.
        public var token: String
        /// The lifetime the server announced, in seconds, when it announced one.
        public var expiresIn: Int64?
        /// Whether the whole body was the token alone, rather than JSON holding it.
        public var isWholeBody: Bool

        public init(token: String, expiresIn: Int64? = nil, isWholeBody: Bool = false) {
            self.token = token
            self.expiresIn = expiresIn
            self.isWholeBody = isWholeBody
        }
    }

    /// Reads the token out of a server's 2xx answer: a body that is the token alone (whatever its content type), or a
    /// JSON object with the token where the shape puts it.
    public func readAnswer(_ reply: HTTPReply) throws(TokenClientError) -> Answer {
        let (status, data) = (reply.status, reply.body)
        guard data.count <= Self.bodyLimit else { throw .answerTooLong(bytes: data.count, limit: Self.bodyLimit) }
        let object = JSONValue.parse(data)?.object
        guard (200..<300).contains(status) else {
            let message = Self.errorText(data, object)
            switch status {
            case 403 where origin == nil && message?.lowercased().utf8.firstRange(of: "origin".utf8) != nil:
                throw .originRequired(message: message ?? "")
            case 401, 403:
                throw .unauthorized(status: status, message: message, sent: sent)
            case 429, 503: throw .rateLimited(status: status, retryAfter: Self.retryAfter(reply))
            default: throw .server(status: status, message: message)
            }
        }
        if let token = PastedToken.alone(in: data) {
            if let field = shape.expiresField { throw .invalidResponse("it is the token alone, with nothing for --expires-field \(field) to read") }
            return Answer(token: token, isWholeBody: true)
        }
        if shape.tokenField?.isWhole == true {
            throw .invalidResponse("it is not a token alone (006… or 007…), which --token-field . reads; name the token's JSON field instead")
        }
        if Self.startsWithMarkup(data) || reply.header("Content-Type").map({ Self.contains($0.utf8, "html".utf8) }) == true {
            throw .invalidResponse("it is HTML, not JSON; is the URL the token endpoint?")
        }
        guard let object else { throw .invalidResponse("it is not a JSON object") }
        let value: JSONValue
        if let field = shape.tokenField {
            value = try Self.member(field, of: .object(object), option: "--token-field")
        } else {
            guard let found = Self.tokenFields.lazy.compactMap({ object[$0] }).first else {
                let names = Self.tokenFields.map { "\"\($0)\"" }
                throw .invalidResponse("it has no \(names[0]) (or \(names.dropFirst().joined(separator: ", "))) field; name the token's field with --token-field")
            }
            value = found
        }
        guard let token = value.string else { throw .invalidResponse("its token is \(value.kind), not a string") }
        if token.isEmpty { throw .invalidResponse("its token is empty") }
        if let flaw = Self.textFlaw(of: token) { throw .invalidResponse(flaw) }
        var answer = Answer(token: token)
        let expiry: JSONValue? = if let field = shape.expiresField {
            try Self.member(field, of: .object(object), option: "--expires-field")
        } else {
            object[Self.expiresField]
        }
        if let expiry {
            let name = shape.expiresField?.description ?? Self.expiresField
            guard case .integer(let seconds) = expiry, seconds > 0 else {
                // A JSON number's text holds only digits, signs, dots and exponents, so it can be shown.
                let shown = switch expiry {
                case .integer(let number): "\(number)"
                case .number(let text): String(text.prefix(24))
                default: expiry.kind
                }
                throw .invalidResponse("\(name) must be a positive whole number (seconds, or a unix time), not \(shown)")
            }
            if seconds >= Self.unixTimeFloor {
                let now = Int64(unixTime().rounded(.down))
                guard seconds > now else { throw .expired(secondsAgo: now - seconds) }
                answer.expiresIn = seconds - now
            } else {
                answer.expiresIn = seconds
            }
        }
        return answer
    }

    /// Whether a body starts, after white space, with `<` (markup). An ASCII start is read as bytes, which is what its
    /// text says and costs no Unicode tables (a simulated day reads 8,640 answers).
    static func startsWithMarkup(_ data: [UInt8]) -> Bool {
        let start = data.prefix(64)
        guard start.allSatisfy({ $0 < 0x80 }) else {
            return String(decoding: start, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("<")
        }
        return start.first { $0 != 0x20 && !(0x09...0x0D).contains($0) } == UInt8(ascii: "<")
    }

    /// What is wrong with a token's text on its face, in words: a "Bearer " in front, or white space. An ASCII token (a
    /// sound one is) is read as bytes, which is what its text says.
    static func textFlaw(of token: String) -> String? {
        let bearer = "its token starts with \"Bearer \"; the server must send the raw token"
        let spaced = "its token contains whitespace or line breaks"
        guard token.utf8.allSatisfy({ $0 < 0x80 }) else {
            if token.lowercased().hasPrefix("bearer ") { return bearer }
            return token.contains { $0.isWhitespace || $0.isNewline } ? spaced : nil
        }
        if token.utf8.prefix(7).map({ (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }).elementsEqual("bearer ".utf8) { return bearer }
        return token.utf8.contains { $0 == 0x20 || (0x09...0x0D).contains($0) } ? spaced : nil
    }

    /// Whether `bytes` hold `part`.
    static func contains(_ bytes: String.UTF8View, _ part: String.UTF8View) -> Bool {
        let (whole, part) = (Array(bytes), Array(part))
        guard part.count <= whole.count else { return false }
        return (0...(whole.count - part.count)).contains { whole[$0..<($0 + part.count)].elementsEqual(part) }
    }

    /// Which of the options that a server may refuse a request for this provider sends.
    var sent: TokenClientError.Sent {
        TokenClientError.Sent([bearer.map { _ in .bearer }, origin.map { _ in .origin }].compactMap { $0 })
    }

    /// Characters of a refusal's own words kept for the error.
    static let errorTextLimit = 200

    /// What a refusal says: a JSON answer's `error` (or `message`) string, or the start of a plain-text body; never a
    /// web page's markup. Bounded; escaped where it is printed.
    static func errorText(_ data: [UInt8], _ object: [String: JSONValue]?) -> String? {
        let text: String
        if let object {
            guard let said = (object["error"] ?? object["message"])?.string else { return nil }
            text = said
        } else {
            text = String(decoding: data.prefix(errorTextLimit * 4), as: UTF8.self)
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("<") else { return nil }
        }
        let words = text.split(whereSeparator: { $0.isWhitespace || $0.isNewline }).joined(separator: " ")
        return words.isEmpty ? nil : String(words.prefix(errorTextLimit))
    }

    /// The value at `field` in an answer, or what `option` should name instead.
    private static func member(_ field: FieldPath, of answer: JSONValue, option: String) throws(TokenClientError) -> JSONValue {
        switch field.value(in: answer) {
        case .success(let value): return value
        case .failure(let problem): throw .invalidResponse("\(problem) (\(option) \(field))")
        }
    }

    /// Accepts an answer only when it holds an Agora token for what was asked, not yet expired (or, handing over
    /// mistakes, any Agora token, with what is wrong with it).
    func accept(_ reply: HTTPReply, for request: TokenRequest, startedAt: Double) throws(TokenClientError) -> FetchedToken {
        let answer = try readAnswer(reply)
        let token = answer.token
        let lifetime = min(Self.longestLifetime, answer.expiresIn ?? Self.longestLifetime)
        let parsed: AgoraToken
        do {
            parsed = try AgoraToken(parsing: token)
        } catch {
            throw .invalidResponse("it is not an Agora token (\(error))")
        }
        let now = Int64(unixTime().rounded(.down))
        var flaw: TokenClientError?
        do throws(TokenError) {
            try parsed.validate(TokenCheck(appID: request.appID, channel: request.channel, user: request.user), now: now)
        } catch {
            let refusal: TokenClientError = switch error {
            case .appIDMismatch, .channelMismatch, .uidMismatch, .crcMismatch: .wrongAudience(error.description)
            case .expired(_, let ago), .joinPrivilegeExpired(_, let ago): .expired(secondsAgo: ago)
            default: .invalidResponse(error.description)
            }
            guard handsOverMistakes, refusal.isMistake else { throw refusal }
            flaw = refusal
        }
        var fetched = FetchedToken(token: token, expiresAt: min(parsed.joinDeadline, Int64(startedAt.rounded(.down)) + lifetime))
        fetched.flaw = flaw
        return fetched
    }

    private static func retryAfter(_ reply: HTTPReply) -> Duration? {
        guard let text = reply.header("Retry-After"), let seconds = Int64(text.trimmingCharacters(in: .whitespaces)),
              seconds >= 0 else { return nil }
        return .seconds(seconds)
    }

    /// An error from a transport other than the socket one (a test's), in words.
    public static func words(for error: any Error) -> String { "\(type(of: error))" }
}
