import AccessToken
import Foundation
import HTTP1
import TokenClient

/// A token as one answer held it.
struct FetchedAnswer {
    let answer: HTTPTokenProvider.Answer
    let token: AgoraToken
}

/// An answer's token, or the failed check saying why it holds none.
enum ReadToken {
    case fetched(FetchedAnswer)
    case failed(Check)
}

extension Doctor {
    /// Lifetimes from here up are unix times, not lengths (1_000_000_000 is 2001-09-09).
    static let absoluteTimes: Int64 = 1_000_000_000
    /// The SDK's warning comes this long before expiry; a token must live longer.
    static let warningLead: Int64 = 30
    /// A token's issue time and the server's `Date` may differ by this much (both whole seconds, taken apart).
    static let dateTolerance: Int64 = 60
    /// A token's issue time and this machine's clock may differ by this much.
    static let clockTolerance: Int64 = 300

    /// The token in an answer, or the failed `answer` or `token` check saying why there is none.
    func readToken(_ reply: Reply) -> ReadToken {
        let answer: HTTPTokenProvider.Answer
        do throws(TokenClientError) {
            answer = try provider.readAnswer(reply.reply)
        } catch {
            if let refusal = error.refusal {
                return .failed(.failed(.answer, "\(reply.excerpt): \(refusal.said)",
                                       fix: refusal.toDo ?? "the server refuses the request itself: its words, or its log, say why"))
            }
            let fix = switch error {
            case .server, .rateLimited: "the token endpoint must answer 200 with the token; the server's log says why it did not"
            default: "point the URL at the token endpoint, and have it answer the token alone, or JSON with the token where --token-request \(setup.shape.description) reads it"
            }
            return .failed(.failed(.answer, "\(reply.excerpt): \(error)", fix: fix))
        }
        do throws(TokenError) {
            return .fetched(FetchedAnswer(answer: answer, token: try AgoraToken(parsing: answer.token)))
        } catch {
            return .failed(.failed(.token, error.description, fix: "send the token exactly as Agora's builder returns it (007… or 006…)"))
        }
    }

    /// The token one more request gets (on a connection of its own with `onNewConnection`), or why it got none.
    func fetchToken(_ request: HTTPRequest, onNewConnection: Bool = false) async -> Result<AgoraToken, NoReply> {
        switch await send(request, onNewConnection: onNewConnection) {
        case .failure(let failure): return .failure(failure)
        case .success(let reply):
            switch readToken(reply) {
            case .failed(let failed): return .failure(NoReply(words: failed.finding))
            case .fetched(let fetched): return .success(fetched.token)
            }
        }
    }

    /// What to do when a request got no answer or no token.
    static let answerEveryRequest = "the server must answer every request with a token; its log says why it did not"

    /// The checks of the first token: the answer, the token, whom it is for, its signature, lifetime and issue time.
    func tokenChecks(_ fetched: FetchedAnswer, reply: Reply, receivedAt: Double) -> [Check] {
        let now = Int64(receivedAt.rounded(.down))
        var checks: [Check] = [
            Self.answerCheck(fetched.answer),
            .passed(.token, describe(fetched.token)),
            audienceCheck(fetched.answer.token, now: now),
        ]
        if let certificate = setup.appCertificate, let signature = signatureCheck(fetched.answer.token, certificate: certificate, now: now) {
            checks.append(signature)
        }
        checks.append(lifetimeCheck(fetched.token, now: now))
        checks.append(clockCheck(fetched.token, serverDate: reply.header("Date"), now: now))
        return checks
    }

    /// The `answer` check of an answer that held a token where the shape puts it, whether or not the token parses.
    static func answerCheck(_ answer: HTTPTokenProvider.Answer) -> Check {
        .passed(.answer, (answer.isWholeBody ? "the token alone, " : "JSON with a token of ") + "\(answer.token.utf8.count) characters")
    }

    private func describe(_ token: AgoraToken) -> String {
        switch token {
        case .accessToken2(let token): "007 (AccessToken2) for App ID \(token.appID), issued \(UnixTime.iso8601(Int64(token.issuedAt)))"
        case .accessToken006(let token): "006 (AccessToken, legacy) for App ID \(token.appID)"
        }
    }

    /// Whether the token is for the App ID (when given), channel, user and role asked for, in `token inspect`'s words; a
    /// token for any user (uid 0) fits only when uid 0 was asked for.
    func audienceCheck(_ token: String, now: Int64) -> Check {
        let asked = setup.request
        let report = TokenReport(inspecting: token, check: TokenCheck(appID: asked.appID, channel: asked.channel, user: asked.user), now: now)
        let mismatched = (asked.appID.map { $0 != report.appID } ?? false) || report.channelMatches == false || report.uidMatches == false
        var findings = mismatched ? report.problems : []
        if report.rtc?.user == "", asked.user != .uid(0) { findings.append(Self.forAnyUser(asked: asked.user)) }
        if let rtc = report.rtc, let problem = Self.roleProblem(rtc.privileges.map(\.id), asked: asked.role) { findings.append(problem) }
        let who = "channel \"\(asked.channel)\", \(asked.user), \(asked.role.word)"
        guard !findings.isEmpty else {
            return .passed(.audience, "for " + (asked.appID.map { "App ID \($0), " } ?? "") + who)
        }
        return .failed(.audience, findings.joined(separator: "; "),
                       fix: "build each token for the channel, user and role of its request, with your project's App ID")
    }

    /// A token for any user where `asked` was asked for, and how a server comes to make one.
    static func forAnyUser(asked: RTCUser) -> String {
        var words = "it is for any user (uid 0, the wildcard), but \(asked) was asked for"
        if case .account(let account) = asked, account.allSatisfy(\.isASCII), account.allSatisfy(\.isNumber) {
            words += ": the server read the account as a number" + (UInt32(account) == nil ? " and wrapped it to 32 bits" : "")
        }
        return words + "; whoever holds it may join as anyone"
    }

    /// Why the RTC privileges granted (by id) are not those of `asked`; nil when they are. Ids that are not RTC privileges
    /// (a 006 token's RTM login) are not part of a role.
    static func roleProblem(_ ids: [UInt16], asked: RTCRole) -> String? {
        let granted = Set(ids.filter { RTCPrivilege(rawValue: $0) != nil })
        func privileges(_ role: RTCRole) -> Set<UInt16> { Set(role.privileges.map(\.rawValue)) }
        guard granted != privileges(asked) else { return nil }
        if let role = RTCRole.allCases.first(where: { privileges($0) == granted }) {
            return "it grants the \(role.word) privileges, but \(asked.word) was asked for"
        }
        let names = granted.sorted().compactMap { RTCPrivilege(rawValue: $0)?.name }
        return "it grants " + (names.isEmpty ? "no RTC privilege" : names.joined(separator: ", "))
            + ", neither a publisher's (all four) nor a subscriber's (joinChannel alone), and \(asked.word) was asked for"
    }

    /// Whether the signature verifies with the certificate, for the user the token is for; nil for a 006 token for a
    /// user other than the one asked (or its other reading), whose signature cannot be checked: `audience` says so.
    func signatureCheck(_ token: String, certificate: String, now: Int64) -> Check? {
        let asked = setup.request.user
        let check = TokenCheck(appCertificate: certificate, channel: setup.request.channel, user: asked)
        let report = TokenReport(inspecting: token, check: check, now: now)
        switch report.signature {
        case .valid:
            // 006 signs the user: name the one it was checked for when that is not the one asked.
            let holder = report.version == AccessToken006.version ? report.rtc?.user.flatMap { RTCUser(tokenField: $0) } : nil
            return .passed(.signature, "valid for the App Certificate given" + (holder.map { $0 == asked ? "" : ", signed for \($0), whom the token is for" } ?? ""))
        case .forAnotherUser:
            return nil
        case .invalid, .notChecked, .needsChannelAndUid:
            return .failed(.signature, TokenError.signatureMismatch.description,
                           fix: "set the server's App Certificate to the primary certificate of App ID \(report.appID ?? "?") (Agora Console)")
        }
    }

    /// Longer than the SDK's 30 s warning, at most 24 h, and not a unix time passed as a length.
    func lifetimeCheck(_ token: AgoraToken, now: Int64) -> Check {
        let lifetime: Int64
        var longestField: Int64 = 0
        switch token {
        case .accessToken2(let fields):
            lifetime = token.joinDeadline - Int64(fields.issuedAt)
            longestField = Int64(([fields.expire] + (fields.rtc?.privileges.values ?? [])).max() ?? 0)
        case .accessToken006:
            lifetime = token.joinDeadline - now
        }
        func length(_ seconds: Int64) -> String { "\(seconds) s (\(UnixTime.duration(seconds)))" }
        if longestField >= Self.absoluteTimes {
            return .failed(.lifetime, "a lifetime of \(longestField) s looks like a unix time (\(UnixTime.iso8601(longestField)))",
                           fix: "pass seconds from now (3600 for 1 h) where AccessToken2's builder takes an expire, not a timestamp as 006 builders did")
        }
        let longest = max(lifetime, longestField)
        if longest > HTTPTokenProvider.longestLifetime {
            return .failed(.lifetime, "\(length(longest)) is longer than Agora's 24 h", fix: "issue tokens for 86400 s at most")
        }
        if lifetime <= Self.warningLead {
            return .failed(.lifetime, "\(length(lifetime)) is not longer than the 30 s warning: tokenPrivilegeWillExpire fires at once",
                           fix: "issue tokens for several minutes at least (Agora's samples use 3600 s)")
        }
        return .passed(.lifetime, length(lifetime))
    }

    /// The token's issue time against the server's `Date` header and this machine's clock.
    func clockCheck(_ token: AgoraToken, serverDate: String?, now: Int64) -> Check {
        let date = serverDate.flatMap(Self.httpDate)
        guard case .accessToken2(let token) = token else {
            return .passed(.clock, "a 006 token carries no issue time" + (date.map { "; the server's Date is \(Self.offset($0 - now)) this machine's clock" } ?? ""))
        }
        let issued = Int64(token.issuedAt)
        if let date, abs(issued - date) > Self.dateTolerance {
            return .failed(.clock, "issued \(UnixTime.iso8601(issued)), \(Self.offset(issued - date)) the server's Date, \(UnixTime.iso8601(date))",
                           fix: "build tokens with the current unix time in UTC seconds (whole hours off is a time zone, a fixed offset a cached time)")
        }
        if abs(issued - now) > Self.clockTolerance {
            let agrees = date.map { _ in "; the server's Date agrees with it, so one of the two clocks is wrong" } ?? ""
            return .failed(.clock, "issued \(UnixTime.iso8601(issued)), \(Self.offset(issued - now)) this machine's clock\(agrees)",
                           fix: "set both clocks by NTP: Agora compares issue and expiry with its own clock")
        }
        let versusDate = date.map { " and \(Self.offset(issued - $0)) the server's Date" } ?? "; the server sent no Date header"
        return .passed(.clock, "issued \(Self.offset(issued - now)) this machine's clock\(versusDate)")
    }

    /// "3 s ahead of", "2 h behind", "level with".
    static func offset(_ seconds: Int64) -> String {
        seconds == 0 ? "level with" : "\(UnixTime.duration(seconds)) \(seconds > 0 ? "ahead of" : "behind")"
    }

    /// An HTTP-date (RFC 9110's IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`) as a unix time.
    static func httpDate(_ text: String) -> Int64? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text).map { Int64($0.timeIntervalSince1970.rounded(.down)) }
    }
}

extension RTCRole {
    /// "publisher" or "subscriber", as token servers name them.
    var word: String { self == .publisher ? "publisher" : "subscriber" }
}
