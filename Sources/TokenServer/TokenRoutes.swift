import AccessToken
import Foundation
import HTTP1
import JSON
import WebServer

/// The endpoints of the token servers users already run, answering with AccessToken2 tokens.
struct TokenRoutes: Sendable {
    let config: TokenServerConfig
    /// Whether an asset has the path of a fixed endpoint (`/ping`, ...), which then is the asset's.
    private let assetsShadowFixedPaths: Bool
    /// What a request's `Host` may name.
    private let names: HostNames

    init(config: TokenServerConfig) {
        self.config = config
        assetsShadowFixedPaths = Endpoint.fixed.contains { config.assets[$0.path.description] != nil }
        names = HostNames(["localhost", config.host] + config.allowedHosts + (config.tls?.certificateNames ?? []))
    }

    /// A field that is missing or wrong: a 400 with these words.
    struct BadRequest: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        if let refusal = refusal(ofHost: request) { return refusal }
        var response = route(request)
        if !config.corsOrigins.isEmpty, let origin = allowedOrigin(request) {
            response.headers += [("Access-Control-Allow-Origin", origin), ("Vary", "Origin")]
        }
        return response
    }

    /// What a request's path names.
    enum Endpoint {
        case asset(WebAsset)
        case ping
        case fetchRTCToken
        case getToken
        /// `/rtc/...`, its five segments.
        case rtc([String])
        case none(path: String)

        /// The endpoints at one path (also written with more slashes, as `/ping/`).
        static let fixed: [(path: StaticString, endpoint: Endpoint)] = [
            ("/ping", .ping), ("/fetch_rtc_token", .fetchRTCToken), ("/getToken", .getToken),
        ]
    }

    func endpoint(_ request: HTTPRequest) -> Endpoint {
        if !assetsShadowFixedPaths, let fixed = Self.fixedEndpoint(request.target) { return fixed }
        let path = request.path
        if let asset = config.assets[path] { return .asset(asset) }
        let segments = path.utf8.split(separator: UInt8(ascii: "/")).map(Substring.init)
        switch segments.first {
        case "ping" where segments.count == 1: return .ping
        case "fetch_rtc_token" where segments.count == 1: return .fetchRTCToken
        case "getToken" where segments.count == 1: return .getToken
        case "rtc" where segments.count == 5: return .rtc(segments.map(String.init))
        default: return .none(path: path)
        }
    }

    /// The fixed endpoint whose path is the whole target, as written; nil for any other target.
    private static func fixedEndpoint(_ target: String) -> Endpoint? {
        var target = target
        return target.withUTF8 { bytes in
            for (path, endpoint) in Endpoint.fixed where path.utf8CodeUnitCount == bytes.count
                && memcmp(path.utf8Start, bytes.baseAddress!, bytes.count) == 0 {
                return endpoint
            }
            return nil
        }
    }

    /// The endpoints that issue tokens.
    private enum Issuing {
        case fetchRTCToken, getToken
        case rtc([String])

        var method: String {
            switch self {
            case .fetchRTCToken, .getToken: "POST"
            case .rtc: "GET"
            }
        }
    }

    private func route(_ request: HTTPRequest) -> HTTPResponse {
        let issuing: Issuing
        switch endpoint(request) {
        case .asset(let asset):
            guard allows(request, "GET") else { return notAllowed(request, "GET") }
            var response = HTTPResponse(status: 200, headers: [("X-Content-Type-Options", "nosniff")], body: asset.body)
            response.contentType = asset.contentType
            return response
        case .ping:
            guard allows(request, "GET") else { return notAllowed(request, "GET") }
            return .json(200, member: "message", "pong")
        case .fetchRTCToken: issuing = .fetchRTCToken
        case .getToken: issuing = .getToken
        case .rtc(let segments): issuing = .rtc(segments)
        case .none(let path):
            return .error(404, "no endpoint at \(path); try POST /fetch_rtc_token, POST /getToken, GET /rtc/{channel}/{role}/uid/{uid}/ or GET /ping")
        }
        let allowed = issuing.method
        guard allows(request, allowed) else { return notAllowed(request, allowed) }
        if let refusal = checkBearer(request) { return refusal }
        do throws(BadRequest) {
            switch issuing {
            case .fetchRTCToken: return try fetchRTCToken(request)
            case .getToken: return try getToken(request)
            case .rtc(let segments): return try rtcPath(request, segments)
            }
        } catch {
            return .error(400, error.message)
        }
    }

    /// Whether the request's method is `allowed`; HEAD is allowed wherever GET is (the server sends no body).
    private func allows(_ request: HTTPRequest, _ allowed: String) -> Bool {
        request.method == allowed || (allowed == "GET" && request.method == "HEAD")
    }

    private func notAllowed(_ request: HTTPRequest, _ allowed: String) -> HTTPResponse {
        if request.method == "OPTIONS", !config.corsOrigins.isEmpty {
            return HTTPResponse(status: 204, headers: [
                ("Access-Control-Allow-Methods", "\(allowed), OPTIONS"),
                ("Access-Control-Allow-Headers", "Content-Type, Authorization"),
                ("Access-Control-Max-Age", "600"),
            ])
        }
        return .error(405, "\(request.method) is not allowed on \(request.path); use \(allowed)",
                      headers: [("Allow", allowed == "GET" ? "GET, HEAD" : allowed)])
    }

    private func allowedOrigin(_ request: HTTPRequest) -> String? {
        guard let origin = request.header("Origin") else { return nil }
        if config.corsOrigins.contains("*") { return "*" }
        return config.corsOrigins.contains(origin) ? origin : nil
    }

    /// A 421 for a request whose `Host` names a site that is not this server: a page there whose name was made to
    /// resolve to this server's address (DNS rebinding) must not get tokens or open the hub. A 400 for a `Host` that is
    /// not `host[:port]`; nil for the server's own names, any IP address, and no `Host` (HTTP/1.0, which no browser
    /// sends).
    private func refusal(ofHost request: HTTPRequest) -> HTTPResponse? {
        guard let host = request.header("Host"), !host.isEmpty else { return nil }
        let judgement = names.judge(host)
        guard judgement != .own else { return nil }
        let shown = HTTPServer.printable(String(host.prefix(200)))
        if judgement == .malformed {
            return .error(400, "the Host header \(shown) is not a name or address with an optional :port; send the one the server was reached at")
        }
        return .error(421, "this server does not answer to the name \(shown): a page of another site may have made its name lead "
                      + "here (DNS rebinding); if the name is this server's, start it with --allowed-host and the name")
    }

    /// A 421 or 400 for a request whose `Host` is not the server's (`refusal(ofHost:)`), then a 403 for a browser's
    /// WebSocket from a page whose origin is neither this server's own (its `Host`, over http or https) nor one
    /// `corsOrigins` allows: a page elsewhere must not ride its user's credentials into the hub. A client that is not
    /// a browser sends no `Origin` and is let through.
    func refusal(ofWebSocketFrom request: HTTPRequest) -> HTTPResponse? {
        if let refusal = refusal(ofHost: request) { return refusal }
        guard let origin = request.header("Origin") else { return nil }
        if config.corsOrigins.contains("*") || config.corsOrigins.contains(origin) { return nil }
        if let host = request.header("Host")?.lowercased(), ["http://\(host)", "https://\(host)"].contains(origin.lowercased()) {
            return nil
        }
        return .error(403, "a page from \(HTTPServer.printable(String(origin.prefix(200)))) may not open \(request.path): "
                      + "only pages of this server and origins --cors-origin names may")
    }

    private func checkBearer(_ request: HTTPRequest) -> HTTPResponse? {
        guard let required = config.requiredBearer else { return nil }
        let challenge = [(name: "WWW-Authenticate", value: "Bearer")]
        guard let header = request.header("Authorization") else {
            return .error(401, "this server needs Authorization: Bearer <credential>", headers: challenge)
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer",
              Self.equalInConstantTime(Array(parts[1].utf8), Array(required.utf8)) else {
            return .error(401, "the bearer credential is not accepted", headers: challenge)
        }
        return nil
    }

    // MARK: Endpoints

    /// Agora's guide: `{"uid": N, "channelName": "...", "role": 1|2}` → `{"token", "expiresIn"}`.
    private func fetchRTCToken(_ request: HTTPRequest) throws(BadRequest) -> HTTPResponse {
        let body = try Self.object(request.body)
        let channel = try Self.string(body["channelName"] ?? body["ChannelName"], "channelName")
        let uid: UInt32
        do throws(BadRequest) {
            uid = try Self.uid(body["uid"], "uid")
        } catch {
            // Text that is not a number is a user account, which this endpoint does not carry.
            guard case .string(let text)? = body["uid"], text.contains(where: { !$0.isASCIIDigit }), !text.hasPrefix("-") else { throw error }
            throw BadRequest("\(error.message): /fetch_rtc_token carries integer uids, as Agora's guide server reads them; for a user account "
                             + "ask POST /getToken {\"uid\": \"NAME\"} or GET /rtc/{channel}/{role}/userAccount/NAME/")
        }
        let role = try body["role"].map { value throws(BadRequest) in try Self.role(value) } ?? .publisher
        let token = try issue(channel: channel, user: .uid(uid), role: role, lifetime: config.tokenLifetime)
        return Self.fetchAnswer(token: token, expiresIn: config.tokenLifetime)
    }

    /// agora-token-service: `{"tokenType": "rtc", "channel", "role", "uid": "<string>", "expire"}` → `{"token"}`.
    private func getToken(_ request: HTTPRequest) throws(BadRequest) -> HTTPResponse {
        let body = try Self.object(request.body)
        let type = try Self.string(body["tokenType"], "tokenType")
        guard type == "rtc" else { throw BadRequest("tokenType \"\(type)\" is not served here; only \"rtc\"") }
        let channel = try Self.string(body["channel"], "channel")
        let role = try body["role"].map { value throws(BadRequest) in try Self.role(value) } ?? .publisher
        let user = try Self.user(body["uid"], "uid")
        let lifetime = try body["expire"].map { value throws(BadRequest) in try Self.lifetime(value, "expire") } ?? config.tokenLifetime
        return .json(200, member: "token", try issue(channel: channel, user: user, role: role, lifetime: lifetime))
    }

    /// agora-token-service's legacy path: `GET /rtc/{channel}/{role}/{uid|userAccount}/{uid}/?expiry=N` → `{"rtcToken"}`.
    private func rtcPath(_ request: HTTPRequest, _ segments: [String]) throws(BadRequest) -> HTTPResponse {
        let role = try Self.role(.string(segments[2]))
        let user: RTCUser
        switch segments[3] {
        case "uid": user = .uid(try Self.uid(.string(segments[4]), "uid"))
        case "userAccount": user = try Self.user(.string(segments[4]), "userAccount", integers: false)
        default: throw BadRequest("the token type in the path is \"\(segments[3])\"; use uid or userAccount")
        }
        let lifetime = try request.query["expiry"].map { text throws(BadRequest) in
            guard !text.isEmpty, text.allSatisfy(\.isASCIIDigit), let value = Int64(text) else {
                throw BadRequest("expiry must be a whole number of seconds, not \"\(text.prefix(20))\"")
            }
            return try Self.lifetime(.integer(value), "expiry")
        } ?? config.tokenLifetime
        return .json(200, member: "rtcToken", try issue(channel: segments[1], user: user, role: role, lifetime: lifetime))
    }

    struct FetchAnswer: Encodable {
        let token: String
        let expiresIn: UInt32
    }

    /// `{"expiresIn":N,"token":"..."}`: what JSONEncoder makes of a `FetchAnswer` with sorted keys, written directly
    /// when the token needs no escaping (an AccessToken2 never does).
    static func fetchAnswer(token: String, expiresIn: UInt32) -> HTTPResponse {
        var body: [UInt8] = []
        body.reserveCapacity(token.utf8.count + 36)
        body.append(contentsOf: #"{"expiresIn":"#.utf8)
        PlainJSON.appendDecimal(expiresIn, to: &body)
        body.append(contentsOf: #","token":"#.utf8)
        guard PlainJSON.appendString(token, to: &body) else { return .json(200, FetchAnswer(token: token, expiresIn: expiresIn)) }
        body.append(UInt8(ascii: "}"))
        return HTTPResponse(status: 200, body: body)
    }

    private func issue(channel: String, user: RTCUser, role: RTCRole, lifetime: UInt32) throws(BadRequest) -> String {
        let parameters = TokenParameters(appID: config.appID, channel: channel, user: user, role: role, lifetime: lifetime,
                                         issuedAt: config.unixTime())
        guard let mistakes = config.mistakes else { return try build(parameters) }
        return try mistakes.token(for: .init(channel: channel, user: user, role: role)) { mistake throws(BadRequest) in
            try build(Self.misconfigured(parameters, by: mistake))
        }
    }

    private func build(_ parameters: TokenParameters) throws(BadRequest) -> String {
        do {
            return try AccessToken2.buildRTC(appID: parameters.appID, appCertificate: config.appCertificate, channel: parameters.channel,
                                             user: parameters.user, role: parameters.role, tokenExpire: parameters.lifetime,
                                             privilegeExpire: parameters.lifetime, issuedAt: parameters.issuedAt)
        } catch {
            throw BadRequest(error.description)
        }
    }

    // MARK: Fields

    /// A request body's members, looked up by name.
    enum Body {
        case flat(JSONFlatObject)
        case parsed([String: JSONValue])

        subscript(name: String) -> JSONValue? {
            switch self {
            case .flat(let object): object[name]
            case .parsed(let members): members[name]
            }
        }
    }

    /// The body's object; a flat one (a token request's) is read straight from the bytes unless `flat` is false,
    /// everything else by the full parser, whose errors these are.
    static func object(_ body: [UInt8], flat: Bool = true) throws(BadRequest) -> Body {
        guard !body.isEmpty else { throw BadRequest("the body is empty; send a JSON object") }
        if flat, let object = body.withUnsafeBufferPointer(JSONFlatObject.read) { return .flat(object) }
        return .parsed(try parsedObject(body))
    }

    private static func parsedObject(_ body: [UInt8]) throws(BadRequest) -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONValue.decode(body)
        } catch {
            throw BadRequest("the body is not valid JSON: \(error); send one JSON object")
        }
        guard case .object(let object) = value else { throw BadRequest("the body is \(value.kind), not a JSON object") }
        return object
    }

    static func string(_ value: JSONValue?, _ name: String) throws(BadRequest) -> String {
        guard let value else { throw BadRequest("\(name) is missing") }
        guard case .string(let text) = value else { throw BadRequest("\(name) must be a string, not \(value.kind)") }
        return text
    }

    /// An integer uid, 0...2^32-1; a number or a string of digits. Never truncated.
    static func uid(_ value: JSONValue?, _ name: String) throws(BadRequest) -> UInt32 {
        let range = "an integer from 0 to 4294967295"
        switch value {
        case nil: throw BadRequest("\(name) is missing")
        case .integer(let number)?:
            guard let uid = UInt32(exactly: number) else { throw BadRequest("\(name) must be \(range), not \(number)") }
            return uid
        case .string(let text)?:
            guard !text.isEmpty, text.allSatisfy(\.isASCIIDigit) else { throw BadRequest("\(name) must be \(range), not \"\(text.prefix(40))\"") }
            guard let uid = UInt32(text) else { throw BadRequest("\(name) must be \(range), not \(text.prefix(40))") }
            return uid
        case .number(let text)?:
            throw BadRequest("\(name) must be \(range), not \(text.prefix(40))")
        case let other?:
            throw BadRequest("\(name) must be \(range), not \(other.kind)")
        }
    }

    /// A uid (digits) or, when `integers` allows it only for digits, a string user account.
    static func user(_ value: JSONValue?, _ name: String, integers: Bool = true) throws(BadRequest) -> RTCUser {
        // "-5" is a uid gone negative (a signed integer in the client), not a user account.
        if integers, case .string(let text)? = value, text.count > 1, text.first == "-", text.dropFirst().allSatisfy(\.isASCIIDigit) {
            throw BadRequest("\(name) must be an integer from 0 to 4294967295, not \(text.prefix(40))")
        }
        if integers, case .string(let text)? = value, text.isEmpty || !text.allSatisfy(\.isASCIIDigit) {
            return try account(text, name)
        }
        if !integers, case .string(let text)? = value { return try account(text, name) }
        return .uid(try uid(value, name))
    }

    private static func account(_ text: String, _ name: String) throws(BadRequest) -> RTCUser {
        do {
            try AgoraID.validateAccount(text)
        } catch {
            throw BadRequest("\(name): \(error.description)")
        }
        return .account(text)
    }

    /// Agora's role numbers (1 publisher, 2 subscriber) or the words, as number or string.
    static func role(_ value: JSONValue) throws(BadRequest) -> RTCRole {
        switch value {
        case .integer(1), .string("1"), .string("publisher"): return .publisher
        // "audience" is Agora-Node-TokenServer's word in its path.
        case .integer(2), .string("2"), .string("subscriber"), .string("audience"): return .subscriber
        case .string(let text): throw BadRequest("role must be publisher, subscriber, 1 or 2, not \"\(text.prefix(20))\"")
        case .integer(let number): throw BadRequest("role must be publisher, subscriber, 1 or 2, not \(number)")
        case .number(let text): throw BadRequest("role must be publisher, subscriber, 1 or 2, not \(text.prefix(20))")
        default: throw BadRequest("role must be publisher, subscriber, 1 or 2, not \(value.kind)")
        }
    }

    static func lifetime(_ value: JSONValue, _ name: String) throws(BadRequest) -> UInt32 {
        let range = TokenServerConfig.lifetimeRange
        guard case .integer(let seconds) = value, let lifetime = UInt32(exactly: seconds), range.contains(lifetime) else {
            throw BadRequest("\(name) must be a whole number of seconds from \(range.lowerBound) to \(range.upperBound)")
        }
        return lifetime
    }

    static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0xFF)
        }
        return difference == 0
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
