import AccessToken
import Foundation
import Synchronization
import TestSupport

/// A token server on 127.0.0.1 that makes one mistake users' servers make and is otherwise sound: it speaks the
/// `fetch` and `getToken` shapes, answers `GET /ping`, refuses bad input with a 400, and allows `origin` by CORS.
final class MistakenTokenServer: Sendable {
    enum Mistake: Sendable, CaseIterable {
        /// The expiry is computed once, at start-up: every token expires at the same second.
        case expiryFixedAtStart
        case wrongCertificate, wrongAppID, wrongUID, wrongChannel
        /// Every token is a subscriber's, whatever the role asked.
        case wrongRole
        /// A unix time passed where AccessToken2 takes seconds from now.
        case timestampAsLifetime
        /// 20 s tokens: the SDK's 30 s warning fires at once.
        case shortLifetime
        /// Two-day tokens, beyond Agora's 24 h.
        case lifetimeOfTwoDays
        /// Tokens issued at local time read as UTC, 3 h off the `Date` header.
        case clockOffByHours
        /// The server's clock is 3 h ahead: its `Date` and its tokens agree, this machine's clock does not.
        case clockAheadByHours
        /// Its 500s carry a terminal escape sequence.
        case errorsWithEscapes
        /// Each token takes 150 ms.
        case slow
        /// More than four requests at once get a 503 (a request that finds another under way is held 200 ms, so the
        /// stampede's pile up).
        case fallsOverUnderLoad
        /// Every other token request is a 500.
        case errorsEveryOther
        /// Tokens cut to 99 characters (a column too narrow in the server's database).
        case truncatedToken
        /// The token endpoint answers a web page.
        case answersHTML
        /// Never answers.
        case silent
        /// A uid out of range wraps, and an empty channel gets a token too.
        case acceptsBadInput
        case noCORS
        /// The preflight allows Content-Type but not Authorization.
        case corsWithoutAuthorization
        /// CORS for another origin than the app's.
        case corsForAnotherOrigin
        case noPing
        /// A catch-all route: every other path, `/ping` included, gets the same 200 web page.
        case catchAllPage
        /// Every request, `/ping` and preflights included, gets a 403.
        case forbidsEverything
        /// Every request, `/ping` and preflights included, gets a 404.
        case notFoundEverywhere
        /// agora-token-service with `CORS_ALLOW_ORIGIN` set to a list: a request without an allowed `Origin` (every
        /// native app's) gets its 403, `{"error":"Origin not allowed"}`.
        case originRequired
        /// Every token is for uid 0, which lets any user join, whoever was asked for.
        case alwaysForAnyUser
        /// Reads a uid as agora-token-service does: digits as a 64-bit number cut to 32 bits (4294967296 becomes the uid-0
        /// wildcard), anything else as an account.
        case wrapsUIDs
        /// A publisher's token grants joinChannel and publishAudioStream only (two privileges, not all four).
        case partialPublisher
        /// Its CORS headers are right, but a token request that carries an `Origin` gets a 403 (cross-site protection).
        case refusesCrossOrigin
        /// Speaks only agora-token-service's `POST /getToken` (and `/ping`): `/fetch_rtc_token` is a 404.
        case getTokenOnly
        /// No mistake: the token alone as `text/html` with a newline, as Agora's Python sample answers.
        case answersTheTokenAlone
        /// A tutorial Flask server on agora-token-builder's 006: the uid passed on as text, so uid 0 is the account "0".
        case legacyUIDAsText
    }

    static let origin = "https://app.example"
    static let appID = TestCredentials.appID
    static let certificate = TestCredentials.certificate

    private let server: HostileServer

    var url: URL { server.url }

    init(_ mistake: Mistake) throws {
        let startedAt = Self.now
        let counts = Mutex((tokenRequests: 0, inFlight: 0))
        server = try HostileServer { connection in
            let request = Request(connection.request)
            let allowed = mistake == .corsForAnotherOrigin ? "https://other.example" : Self.origin
            let cors = mistake == .noCORS || request.header("origin") != Self.origin ? [] : ["Access-Control-Allow-Origin: \(allowed)"]
            func answer(_ status: String, _ body: String, type: String = "application/json", _ headers: [String] = []) {
                let date = "Date: " + Self.httpDate(Self.now + (mistake == .clockAheadByHours ? 3 * 3600 : 0))
                connection.write(head(status, ["Content-Type: \(type)", "Content-Length: \(body.utf8.count)", date] + cors + headers) + body)
            }
            switch (request.method, request.path) {
            case _ where mistake == .forbidsEverything:
                answer("403 Forbidden", #"{"error":"forbidden"}"#)
            case _ where mistake == .notFoundEverywhere:
                answer("404 Not Found", #"{"error":"no such endpoint"}"#)
            case _ where mistake == .originRequired && request.header("origin") != Self.origin:
                answer("403 Forbidden", #"{"error":"Origin not allowed"}"#)
            case ("POST", _) where mistake == .refusesCrossOrigin && request.header("origin") != nil:
                answer("403 Forbidden", #"{"error":"cross-origin requests are refused"}"#)
            case ("POST", "/fetch_rtc_token") where mistake == .getTokenOnly:
                answer("404 Not Found", "404 page not found", type: "text/plain")
            case ("GET", "/ping") where mistake != .noPing && mistake != .catchAllPage:
                answer("200 OK", #"{"message":"pong"}"#)
            case ("OPTIONS", _) where mistake != .noCORS:
                let headers = mistake == .corsWithoutAuthorization ? "Content-Type" : "Content-Type, Authorization"
                answer("204 No Content", "", ["Access-Control-Allow-Methods: POST, OPTIONS", "Access-Control-Allow-Headers: \(headers)"])
            case ("POST", "/fetch_rtc_token"), ("POST", "/getToken"):
                let (index, inFlight) = counts.withLock { counts in
                    counts.tokenRequests += 1
                    counts.inFlight += 1
                    return (counts.tokenRequests - 1, counts.inFlight)
                }
                defer { counts.withLock { $0.inFlight -= 1 } }
                if mistake == .slow { Thread.sleep(forTimeInterval: 0.15) }
                if mistake == .fallsOverUnderLoad, inFlight > 1 {
                    Thread.sleep(forTimeInterval: 0.2)
                    guard inFlight <= 4 else { return answer("503 Service Unavailable", #"{"error":"busy"}"#) }
                }
                switch mistake {
                case .silent:
                    connection.waitForClose(upTo: .seconds(5))
                case .errorsWithEscapes:
                    answer("500 Internal Server Error", "{\"error\":\"\u{1b}]0;pwned\u{07}\u{1b}[2J\"}")
                case .errorsEveryOther where index % 2 == 1:
                    answer("500 Internal Server Error", #"{"error":"something went wrong"}"#)
                case .answersHTML:
                    answer("200 OK", "<html><body><h1>Welcome to nginx!</h1></body></html>", type: "text/html")
                default:
                    guard let token = Self.token(for: request, mistake, startedAt: startedAt) else {
                        return answer("400 Bad Request", #"{"error":"uid must be 0...4294967295 and channel 1-63 characters"}"#)
                    }
                    if mistake == .answersTheTokenAlone { return answer("200 OK", token + "\n", type: "text/html; charset=utf-8") }
                    answer("200 OK", #"{"token":"\#(mistake == .truncatedToken ? String(token.prefix(99)) : token)"}"#)
                }
            case _ where mistake == .catchAllPage:
                answer("200 OK", "<!doctype html><html><body><div id=\"app\"></div></body></html>", type: "text/html")
            default:
                answer("404 Not Found", #"{"error":"no such endpoint"}"#)
            }
        }
    }

    /// Stops the server and waits for its threads (`HostileServer.stop`).
    func stop() { server.stop() }

    private static var now: UInt32 { UInt32(Date().timeIntervalSince1970) }

    /// The token the request asks for, with the mistake in it; nil for bad input (unless accepting it is the mistake).
    private static func token(for request: Request, _ mistake: Mistake, startedAt: UInt32) -> String? {
        let fields = (try? JSONSerialization.jsonObject(with: Data(request.body.utf8))) as? [String: Any] ?? [:]
        var channel = (fields["channelName"] ?? fields["channel"]) as? String ?? ""
        let uidText = fields["uid"].map { "\($0)" } ?? "0"
        var uid = UInt32(uidText)
        var role: RTCRole = ["2", "subscriber"].contains(fields["role"].map { "\($0)" } ?? "") ? .subscriber : .publisher
        if mistake == .acceptsBadInput {
            uid = uid ?? UInt32(truncatingIfNeeded: Int64(uidText) ?? 0)
            if channel.isEmpty { channel = "default" }
        }
        var account: String?
        if mistake == .wrapsUIDs, uid == nil {
            if let wide = UInt64(uidText) { uid = UInt32(truncatingIfNeeded: wide) } else { account = uidText }
        }
        guard let asked = uid ?? account.map({ _ in 0 }), (try? AgoraID.validateChannelName(channel)) != nil else { return nil }
        let now = Self.now
        var (appID, certificate, user, expire, issuedAt) = (Self.appID, Self.certificate, account.map(RTCUser.account) ?? .uid(asked),
                                                            UInt32(3600), now)
        switch mistake {
        case .expiryFixedAtStart: expire = startedAt + 3600 - now
        case .wrongCertificate: certificate = "0123456789abcdef0123456789abcdef"
        case .wrongAppID: appID = "0123456789abcdef0123456789abcdef"
        case .wrongUID: user = .uid(asked &+ 1)
        case .wrongChannel: channel += "2"
        case .wrongRole: role = .subscriber
        case .timestampAsLifetime: expire = now + 3600
        case .shortLifetime: expire = 20
        case .lifetimeOfTwoDays: expire = 2 * 86_400
        case .clockOffByHours, .clockAheadByHours: issuedAt = now + 3 * 3600
        case .alwaysForAnyUser: user = .uid(0)
        case .legacyUIDAsText:
            return Legacy006.token(appID: appID, certificate: certificate, channel: channel, uid: uidText, messageExpiresAt: now + 86_400,
                                   privileges: role == .publisher ? [1, 2, 3, 4] : [1], privilegesExpireAt: now + expire)
        case .partialPublisher where role == .publisher:
            let privileges = PrivilegeMap([RTCPrivilege.joinChannel.rawValue: expire, RTCPrivilege.publishAudioStream.rawValue: expire])
            let service = Service(type: ServiceType.rtc.rawValue, privileges: privileges, detail: .rtc(channel: channel, uid: user.tokenField))
            return try? AccessToken2(appID: appID, issuedAt: issuedAt, expire: expire, salt: 1, services: [service]).build(appCertificate: certificate)
        default: break
        }
        return try? AccessToken2.buildRTC(appID: appID, appCertificate: certificate, channel: channel, user: user, role: role,
                                          tokenExpire: expire, privilegeExpire: min(expire, 86_400), issuedAt: issuedAt)
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`.
    private static func httpDate(_ time: UInt32) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date(timeIntervalSince1970: Double(time)))
    }

    /// The parts of a request the server reads.
    private struct Request {
        let method: String
        let path: String
        let headers: [(String, String)]
        let body: String

        init(_ text: String) {
            let parts = text.components(separatedBy: "\r\n\r\n")
            let lines = parts[0].components(separatedBy: "\r\n")
            let words = lines[0].split(separator: " ")
            method = words.first.map(String.init) ?? ""
            path = words.count > 1 ? String(words[1]) : ""
            headers = lines.dropFirst().compactMap { line in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            body = parts.dropFirst().joined(separator: "\r\n\r\n")
        }

        func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
    }
}
