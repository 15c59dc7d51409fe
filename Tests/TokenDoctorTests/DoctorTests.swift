import AccessToken
import CCrypto
import Foundation
import TestSupport
import TLS
import Testing
import TokenClient
@testable import TokenDoctor
import TokenServer

/// `tokencall doctor`'s checks against real servers on 127.0.0.1: the sound one passes each, and a server that makes one
/// mistake fails the check concerned, saying what it saw. One at a time: the stampede check opens 50 connections.
@Suite(.serialized) struct DoctorTests {
    static let channel = "doctor"
    static let bearer = "s3cret"

    /// Any answer within the deadline is fast enough here, where other tests share the cores: only the slow server's
    /// test sets a latency limit, below the time it takes by construction.
    static func setup(_ url: URL, shape: HTTPTokenProvider.Shape = .fetch, bearer: String? = nil,
                      timeout: Duration = .seconds(30)) -> Doctor.Setup {
        Doctor.Setup(url: url, shape: shape, request: TokenRequest(channel: channel, user: .uid(42), appID: TestCredentials.appID),
                     appCertificate: TestCredentials.certificate, bearer: bearer, origin: MistakenTokenServer.origin, timeout: timeout,
                     slowestP99: timeout)
    }

    /// The checks of an https:// server alone, left out for http://.
    static let overTLSOnly: Set<Check.Name> = [.tlsVersion, .tlsChain, .tlsName, .tlsExpiry, .httpsRedirect]

    /// The checks that failed, without those skipped because of them.
    static func failed(_ checks: [Check]) -> Set<Check.Name> { Set(checks.filter { !$0.ok && $0.skippedBecause == nil }.map(\.name)) }

    /// The checks skipped because `cause` failed.
    static func skipped(_ checks: [Check], because cause: Check.Name) -> Set<Check.Name> {
        Set(checks.filter { $0.skippedBecause == cause }.map(\.name))
    }

    static func detail(_ name: Check.Name, in checks: [Check]) -> String { checks.first { $0.name == name }?.detail ?? "(not run)" }

    @Test(arguments: HTTPTokenProvider.Shape.named.map(\.shape))
    func theSoundServerPassesEveryCheck(shape: HTTPTokenProvider.Shape) async throws {
        let server = try TokenServer(TokenServerConfig(port: 0, appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                                       requiredBearer: Self.bearer, corsOrigins: [MistakenTokenServer.origin]))
        defer { server.stop() }
        let checks = await Doctor(Self.setup(server.url, shape: shape, bearer: Self.bearer)).run()
        #expect(checks.filter { !$0.ok }.map(\.detail) == [])
        let ran = Set(Check.Name.allCases).subtracting(Self.overTLSOnly).subtracting(shape.hasPing ? [] : [.ping])
        #expect(checks.map(\.name) == Check.Name.allCases.filter(ran.contains))
        #expect(Self.detail(.audience, in: checks) == "for App ID \(TestCredentials.appID), channel \"doctor\", uid 42, publisher")
        #expect(Self.detail(.lifetime, in: checks) == "3600 s (1 h)")
    }

    @Test(arguments: [
        (MistakenTokenServer.Mistake.expiryFixedAtStart, Check.Name.renewal, "both expire at"),
        (.wrongCertificate, .signature, "built with another App Certificate"),
        (.wrongAppID, .audience, "it was built for App ID 0123456789abcdef0123456789abcdef"),
        (.wrongUID, .audience, "the token was built for uid 43, but you join as uid 42"),
        (.wrongChannel, .audience, "it was built for channel \"doctor2\", not \"doctor\""),
        (.wrongRole, .audience, "it grants the subscriber privileges, but publisher was asked for"),
        (.partialPublisher, .audience, "it grants joinChannel, publishAudioStream, neither a publisher's (all four) nor a subscriber's"),
        (.alwaysForAnyUser, .audience, "it is for any user (uid 0, the wildcard), but uid 42 was asked for; whoever holds it may join as anyone"),
        (.timestampAsLifetime, .lifetime, "s looks like a unix time (20"),
        (.lifetimeOfTwoDays, .lifetime, "172800 s (2 d) is longer than Agora's 24 h → issue tokens for 86400 s at most"),
        (.shortLifetime, .lifetime, "20 s (20 s) is not longer than the 30 s warning"),
        (.clockOffByHours, .clock, "3 h ahead of the server's Date"),
        (.clockAheadByHours, .clock, "3 h ahead of this machine's clock; the server's Date agrees with it"),
        (.fallsOverUnderLoad, .stampede, "requests at once failed, the first: HTTP 503, \"{\"error\":\"busy\"}\""),
        (.acceptsBadInput, .badInput, "uid 4294967296 got a token (HTTP 200); an empty channel got a token"),
        (.noCORS, .cors, "the preflight (OPTIONS) got HTTP 404"),
        (.corsWithoutAuthorization, .cors, "the preflight does not allow the header Authorization"),
        (.corsForAnotherOrigin, .cors, "the preflight's Access-Control-Allow-Origin is \"https://other.example\", not https://app.example"),
    ])
    func aServerMakingOneMistakeFailsThatCheckAlone(mistake: MistakenTokenServer.Mistake, check: Check.Name, words: String) async throws {
        let server = try MistakenTokenServer(mistake)
        defer { server.stop() }
        let checks = await Doctor(Self.setup(server.url, bearer: Self.bearer)).run()
        #expect(Self.failed(checks) == [check])
        #expect(Self.detail(check, in: checks).contains(words), "\(Self.detail(check, in: checks))")
    }

    @Test func aTokenForAUserAccountIsCheckedAgainstTheAccount() async throws {
        let server = try TokenServer(TokenServerConfig(port: 0, appID: TestCredentials.appID, appCertificate: TestCredentials.certificate))
        defer { server.stop() }
        var setup = Self.setup(server.url, shape: .getToken)
        setup.request.user = .account("alice")
        setup.origin = nil
        let checks = await Doctor(setup).run()
        #expect(checks.filter { !$0.ok }.map(\.detail) == [])
        #expect(Self.detail(.audience, in: checks) == "for App ID \(TestCredentials.appID), channel \"doctor\", account \"alice\", publisher")
    }

    @Test func aSlowServerFailsTheLatencyCheckWithItsFigures() async throws {
        let server = try MistakenTokenServer(.slow)
        defer { server.stop() }
        var setup = Self.setup(server.url)
        setup.slowestP99 = .milliseconds(100)
        let checks = await Doctor(setup).run()
        #expect(Self.failed(checks) == [.latency])
        #expect(Self.detail(.latency, in: checks).contains(" over 20 requests, slower than 100 ms → "))
    }

    @Test func aServerWithoutPingFailsThePingCheckOfShapesThatHaveOne() async throws {
        let server = try MistakenTokenServer(.noPing)
        defer { server.stop() }
        let checks = await Doctor(Self.setup(server.url.appendingPathComponent("getToken"), shape: .getToken)).run()
        #expect(Self.failed(checks) == [.ping])
        #expect(Self.detail(.ping, in: checks).hasPrefix("GET /ping: HTTP 404, \"{\"error\":\"no such endpoint\"}\" → answer GET /ping"))
    }

    @Test func aCatchAllWebPageIsNoPing() async throws {
        let server = try MistakenTokenServer(.catchAllPage)
        defer { server.stop() }
        let checks = await Doctor(Self.setup(server.url.appendingPathComponent("getToken"), shape: .getToken)).run()
        #expect(Self.failed(checks) == [.ping])
        #expect(Self.detail(.ping, in: checks).hasPrefix(#"GET /ping: HTTP 200, "<!doctype html>"#))
        #expect(Self.detail(.ping, in: checks).contains("a web page such as a catch-all route answers any path with → answer GET /ping"))
    }

    @Test func aServerThatErrsEveryOtherTimeFailsWithTheStatusAndAnExcerpt() async throws {
        let server = try MistakenTokenServer(.errorsEveryOther)
        defer { server.stop() }
        let checks = await Doctor(Self.setup(server.url)).run()
        #expect(checks.first { $0.name == .answer }?.ok == true)
        #expect(Self.failed(checks).isSuperset(of: [.latency, .stampede]))
        #expect(Self.detail(.latency, in: checks).contains(" of 20 requests failed, the first: HTTP 500, \"{\"error\":\"something went wrong\"}\""))
    }

    @Test func anHTMLAnswerFailsTheAnswerCheckWithAnExcerpt() async throws {
        let server = try MistakenTokenServer(.answersHTML)
        defer { server.stop() }
        let checks = await Doctor(Self.setup(server.url)).run()
        #expect(Self.detail(.answer, in: checks).hasPrefix("HTTP 200, \"<html><body><h1>Welcome to nginx!</h1></body></h…\": "))
        #expect(Self.detail(.answer, in: checks).contains("it is HTML, not JSON"))
        #expect(Self.failed(checks) == [.answer])
        #expect(Self.skipped(checks, because: .answer).isSuperset(of: [.token, .audience, .lifetime, .renewal, .latency, .stampede]))
    }

    @Test func whatTheServerSendsIsPrintedEscaped() async throws {
        let server = try MistakenTokenServer(.errorsWithEscapes)
        defer { server.stop() }
        let report = DoctorReport(url: server.url, checks: await Doctor(Self.setup(server.url)).run())
        #expect(report.text.contains(#"HTTP 500, "{"error":"\u001b]0;pwned\u0007\u001b[2J"}": the token server answered HTTP 500"#))
        #expect(!report.text.contains("\u{1b}") && !report.json.contains("\u{1b}") && !report.json.contains("\u{07}"))
    }

    @Test func theReportShowsTheURLWithoutCredentials() throws {
        let report = DoctorReport(url: try #require(URL(string: "http://alice:hunter2@127.0.0.1:8080/t?api_key=KEY")), checks: [])
        #expect(report.url == "http://127.0.0.1:8080/t")
        #expect(!report.text.contains("KEY") && !report.json.contains("KEY") && !report.json.contains("hunter2"))
    }

    @Test func aTokenCutShortFailsTheTokenCheck() async throws {
        let server = try MistakenTokenServer(.truncatedToken)
        defer { server.stop() }
        let checks = await Doctor(Self.setup(server.url)).run()
        #expect(Self.failed(checks) == [.token])
        #expect(Self.detail(.token, in: checks).contains("cut short or altered → send the token exactly as Agora's builder returns it"))
        #expect(Self.skipped(checks, because: .token) == [.audience, .signature, .renewal, .lifetime, .clock, .stampede])
        #expect(Self.detail(.stampede, in: checks) == "not checked, because token failed")
    }

    @Test func aServerThatNeverAnswersFailsReachableWithinTheDeadline() async throws {
        let server = try MistakenTokenServer(.silent)
        defer { server.stop() }
        let checks = await Doctor(Self.setup(server.url, timeout: .seconds(1))).run()
        #expect(Self.failed(checks) == [.reachable])
        #expect(Self.skipped(checks, because: .reachable) == Set(Check.Name.allCases).subtracting(Self.overTLSOnly).subtracting([.reachable, .ping]))
        #expect(Self.detail(.reachable, in: checks).hasPrefix("the token server did not answer within 1 s"))
    }

    /// Read with FoundationNetworking in the doctor's own process, these answers would end it (#5285).
    @Test func answersThatCrashSwiftsHTTPClientAreCheckedNotFatal() async throws {
        let cut = try HostileServer { $0.write("HTTP/1.1 200 OK\r\nX-Slow: aaa") }
        defer { cut.stop() }
        let checks = await Doctor(Self.setup(cut.url)).run()
        #expect(Self.failed(checks) == [.reachable])
        #expect(Self.detail(.reachable, in: checks).hasPrefix(
            "cannot reach the token server: the connection closed before the whole answer: inside its head, which must end with a blank line"))

        let trailer = try HostileServer { connection in
            connection.write(head("200 OK", ["Content-Type: application/json", "Transfer-Encoding: chunked"]) + "2\r\n{}\r\n0\r\nX-Checksum: 1\r\n\r\n")
        }
        defer { trailer.stop() }
        let read = await Doctor(Self.setup(trailer.url)).run()
        #expect(Self.detail(.reachable, in: read).hasPrefix("HTTP 200 in "), "the answer is read, trailer and all")
        #expect(Self.detail(.answer, in: read).contains("it has no \"token\" (or \"rtcToken\") field"))
    }

    @Test func theReportShowsNoWholeTokenAndNoCertificate() async throws {
        let server = try MistakenTokenServer(.wrongCertificate)
        defer { server.stop() }
        let report = DoctorReport(url: server.url, checks: await Doctor(Self.setup(server.url)).run())
        for text in [report.text, report.json] {
            #expect(!text.contains(TestCredentials.certificate))
            #expect(text.firstMatch(of: /007[A-Za-z0-9+\/=]{49,}/) == nil)
        }
        #expect(report.text.hasSuffix("\n1 of 12 checks failed"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any])
        #expect(object["url"] as? String == server.url.absoluteString)
        #expect(object["ok"] as? Bool == false)
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.map { $0["name"] as? String } == Check.Name.allCases.filter { $0 != .ping && !Self.overTLSOnly.contains($0) }.map(\.rawValue))
        #expect(checks.filter { $0["ok"] as? Bool == false }.map { $0["name"] as? String } == ["signature"])
        #expect(checks.allSatisfy { ($0["detail"] as? String)?.isEmpty == false })
    }

    /// One cause, one failure: a server that refuses every request fails `answer`, and every check that would only repeat
    /// the refused request (or needs its token) is skipped because of it, not failed with advice for another cause.
    @Test(arguments: [(MistakenTokenServer.Mistake.notFoundEverywhere, "HTTP 404"), (.forbidsEverything, "HTTP 403")])
    func aServerRefusingEverythingFailsTheAnswerAndSkipsTheRest(mistake: MistakenTokenServer.Mistake, status: String) async throws {
        let server = try MistakenTokenServer(mistake)
        defer { server.stop() }
        let checks = await Doctor(Self.setup(server.url, shape: .getToken)).run()
        #expect(Self.failed(checks) == [.answer], "\(checks.filter { !$0.ok }.map(\.detail))")
        #expect(Self.detail(.answer, in: checks).hasPrefix("\(status), "))
        let all = Set(Check.Name.allCases).subtracting(Self.overTLSOnly)
        #expect(Self.skipped(checks, because: .answer) == all.subtracting([.reachable, .answer]))
        #expect(Self.detail(.latency, in: checks) == "not checked, because answer failed")
        let report = DoctorReport(url: server.url, checks: checks)
        #expect(report.text.hasSuffix("\nskip cors: not checked, because answer failed\n1 of \(all.count) checks failed, \(all.count - 2) not checked because of it"),
                "\(report.text)")
        #expect(report.json.contains(#"{"detail":"not checked, because answer failed","name":"latency","ok":false,"skipped":"answer"}"#), "\(report.json)")
        #expect(!report.text.contains("serve that many at once"), "no stampede advice for a refusal")
    }

    /// Bad input is judged beside good input: against a server that refuses everything it cannot be judged, and says so.
    @Test(arguments: [(MistakenTokenServer.Mistake.forbidsEverything, "HTTP 403"), (.notFoundEverywhere, "HTTP 404")])
    func badInputBesideGoodInputThatGetsNoTokenIsNotJudged(mistake: MistakenTokenServer.Mistake, status: String) async throws {
        let server = try MistakenTokenServer(mistake)
        defer { server.stop() }
        var setup = Self.setup(server.url, shape: .getToken)
        setup.origin = nil
        let check = try #require(await Doctor(setup).badInputCheck())
        #expect(!check.ok)
        #expect(check.detail.hasPrefix("cannot tell whether uid 4294967296 is refused: the same request for uid 4294967295 got no token either (\(status)"),
                "\(check.detail)")
        #expect(check.detail.contains("cannot tell whether an empty channel is refused: the same request for channel \"doctor\" got no token either"))
        #expect(check.detail.hasSuffix("→ answer the request with good values with a token; only then does refusing bad input show anything"))
        #expect(!check.detail.contains("--auth-bearer"), "no --auth-bearer was given")
        if mistake == .forbidsEverything {
            let checks = await Doctor(setup).run()
            #expect(Self.detail(.answer, in: checks).hasPrefix(
                #"HTTP 403, "{"error":"forbidden"}": the token server refused the request (HTTP 403, "forbidden") → the server refuses the request itself"#))
        }
    }

    /// CORS headers that let the app read a refusal do not let it get a token: the request, sent with the app's Origin,
    /// fails `answer` in the server's words, naming the option that sent the Origin; `cors` is not checked after it.
    @Test func aTokenRequestRefusedWithItsOriginFailsTheAnswerCheck() async throws {
        let server = try MistakenTokenServer(.refusesCrossOrigin)
        defer { server.stop() }
        let checks = await Doctor(Self.setup(server.url, bearer: Self.bearer)).run()
        #expect(Self.failed(checks) == [.answer])
        #expect(Self.detail(.answer, in: checks).hasSuffix(#"(HTTP 403, "cross-origin requests are refused") → "#
            + "add the origin --origin gives to those it allows (agora-token-service: CORS_ALLOW_ORIGIN)"), "\(Self.detail(.answer, in: checks))")
        #expect(Self.detail(.cors, in: checks) == "not checked, because answer failed")
        var native = Self.setup(server.url, bearer: Self.bearer)
        native.origin = nil
        #expect(Self.failed(await Doctor(native).run()) == [], "without an Origin it is a sound server")
    }

    @Test func aRefusalWithTheBearerSentNamesIt() async throws {
        let server = try MistakenTokenServer(.forbidsEverything)
        defer { server.stop() }
        let checks = await Doctor(Self.setup(server.url, bearer: Self.bearer)).run()
        #expect(Self.detail(.answer, in: checks).hasSuffix(#"(HTTP 403, "forbidden") → check --auth-bearer"#))
    }

    /// agora-token-service with CORS_ALLOW_ORIGIN set to a list refuses every request without an Origin: without
    /// --origin the answer check says so in one sentence with the server-side fix; with it, the CORS check does.
    @Test func aServerRefusingRequestsWithoutAnOriginIsExplained() async throws {
        let server = try MistakenTokenServer(.originRequired)
        defer { server.stop() }
        var native = Self.setup(server.url, shape: .getToken, bearer: Self.bearer)
        native.origin = nil
        let checks = await Doctor(native).run()
        #expect(Self.detail(.answer, in: checks) == #"HTTP 403, "{"error":"Origin not allowed"}": the token server refuses every request "#
            + #"without an Origin header (HTTP 403, "Origin not allowed"), as agora-token-service does when CORS_ALLOW_ORIGIN lists origins, "#
            + "so no native app gets a token → have it serve requests that carry no Origin (CORS is for browsers; CORS_ALLOW_ORIGIN=* there), "
            + "or send one with --origin")
        #expect(Self.failed(checks) == [.answer], "one cause, one failure: \(checks.filter { !$0.ok }.map(\.detail))")
        #expect(Self.skipped(checks, because: .answer).isSuperset(of: [.latency, .ping, .stampede, .badInput]))

        let browser = await Doctor(Self.setup(server.url, shape: .getToken, bearer: Self.bearer)).run()
        #expect(Self.failed(browser) == [.cors], "\(browser.filter { !$0.ok }.map(\.detail))")
        #expect(Self.detail(.cors, in: browser).hasPrefix("without an Origin (a native app's request): the token server refuses every request "
            + "without an Origin header (HTTP 403, \"Origin not allowed\")"))
        #expect(Self.detail(.cors, in: browser).hasSuffix("→ have it serve requests that carry no Origin (CORS is for browsers; "
            + "CORS_ALLOW_ORIGIN=* there), or send one with --origin"))
    }

    /// Asked for an account of digits, a server that reads it as a uid cut to 32 bits hands out the uid-0 wildcard.
    @Test(arguments: [("4294967296", " and wrapped it to 32 bits;"), ("0", ";")])
    func aTokenForAnyUserFailsTheAudienceCheckForANamedUser(account: String, wrapped: String) async throws {
        let server = try MistakenTokenServer(.wrapsUIDs)
        defer { server.stop() }
        var setup = Self.setup(server.url, shape: .getToken)
        setup.request.user = .account(account)
        setup.origin = nil
        let checks = await Doctor(setup).run()
        #expect(Self.detail(.audience, in: checks).hasPrefix("it is for any user (uid 0, the wildcard), but account \"\(account)\" was asked for: "
            + "the server read the account as a number\(wrapped) whoever holds it may join as anyone → build each token"), "\(Self.detail(.audience, in: checks))")
        setup.request.user = .account("alice")
        #expect(Self.detail(.audience, in: await Doctor(setup).run()).hasPrefix("for App ID"), "an account that is not digits stays one")
    }

    /// The default shape against agora-token-service's paths: a 404, and /ping answers, so the shape that works is named.
    @Test func aTokenPathThatIsA404OnAServerThatAnswersPingSuggestsTheShape() async throws {
        let server = try MistakenTokenServer(.getTokenOnly)
        defer { server.stop() }
        var setup = Self.setup(server.url)
        setup.origin = nil
        let checks = await Doctor(setup).run()
        #expect(Self.detail(.answer, in: checks).hasSuffix(
            "→ GET /ping answers, and --token-request getToken or agora-token-service gets a token there: use that"), "\(Self.detail(.answer, in: checks))")
        let nowhere = try MistakenTokenServer(.notFoundEverywhere)
        defer { nowhere.stop() }
        var lost = Self.setup(nowhere.url)
        lost.origin = nil
        #expect(!Self.detail(.answer, in: await Doctor(lost).run()).contains("GET /ping answers"))
    }

    /// Agora's Python sample answers the token alone as a web page: that is the token, and every check passes.
    @Test func theTokenAloneAsAWebPageIsTheToken() async throws {
        let server = try MistakenTokenServer(.answersTheTokenAlone)
        defer { server.stop() }
        let checks = await Doctor(Self.setup(server.url, bearer: Self.bearer)).run()
        #expect(Self.failed(checks) == [], "\(checks.filter { !$0.ok }.map(\.detail))")
        #expect(Self.detail(.answer, in: checks).hasPrefix("the token alone, "), "\(Self.detail(.answer, in: checks))")
        #expect(Self.detail(.audience, in: checks) == "for App ID \(TestCredentials.appID), channel \"doctor\", uid 42, publisher")
    }

    /// A 006 token for the account "0" where uid 0 was asked is signed right for that account: the audience check
    /// names it, and the signature check does not blame the App Certificate.
    @Test func a006TokenForTheAccount0IsNamedNotBlamedOnTheCertificate() async throws {
        let server = try MistakenTokenServer(.legacyUIDAsText)
        defer { server.stop() }
        var setup = Self.setup(server.url, bearer: Self.bearer)
        setup.request.user = .uid(0)
        let checks = await Doctor(setup).run()
        #expect(Self.failed(checks) == [.audience], "\(checks.filter { !$0.ok }.map(\.detail))")
        #expect(Self.detail(.audience, in: checks).hasPrefix("the token is for the account \"0\" (a string), which is not the wildcard"),
                "\(Self.detail(.audience, in: checks))")
        #expect(Self.detail(.signature, in: checks) == "valid for the App Certificate given, signed for account \"0\", whom the token is for")
        setup.request.user = .uid(42)
        #expect(Self.failed(await Doctor(setup).run()) == [], "asked for uid 42 it makes a sound token for \"42\"")
    }

    @Test func theLifetimeAskedForReachesATemplatesExpire() async throws {
        let server = try TokenServer(TokenServerConfig(port: 0, appID: TestCredentials.appID, appCertificate: TestCredentials.certificate))
        defer { server.stop() }
        let shape = try #require(HTTPTokenProvider.Shape.named.first { $0.shape.description == "agora-token-service" }?.shape)
        var setup = Self.setup(server.url, shape: shape)
        setup.origin = nil
        setup.requestedLifetime = 600
        #expect(Self.detail(.lifetime, in: await Doctor(setup).run()) == "600 s (10 min)")
    }
}

/// `doctor https://…`: the TLS version, the chain, the name and the expiry from a handshake of its own, and where plain
/// http:// at the host sends a client; each check's words.
@Suite(.serialized) struct DoctorTLSTests {
    static let certificates = Result { try TestCertificates.make() }

    /// A doctor of an https:// front (with `pair`) for a sound token server, trusting the test CA; plain http:// is
    /// asked at `plain`.
    static func checks(_ pair: (TestCertificates) -> TestCertificates.Pair, plain: URL, trust: TLSTrust? = nil,
                       host: String = "127.0.0.1") async throws -> [Check] {
        let certificates = try certificates.get()
        let server = try TokenServer(TokenServerConfig(port: 0, appID: TestCredentials.appID, appCertificate: TestCredentials.certificate))
        defer { server.stop() }
        let front = try TLSTestServer(pair(certificates), answer: TLSTestServer.forwarding(to: server.port))
        defer { front.stop() }
        var setup = DoctorTests.setup(front.url(host: host))
        setup.origin = nil
        setup.plainURL = plain
        let transport = LoopHTTPTransport(userAgent: "tokencall/test", trust: trust ?? .file(certificates.caFile))
        return await Doctor(setup, transport: transport).run()
    }

    /// A plain server that redirects every request to `location`.
    static func redirecting(to location: @escaping @Sendable () -> String) throws -> HostileServer {
        try HostileServer { $0.write("HTTP/1.1 301 Moved Permanently\r\nLocation: \(location())\r\nContent-Length: 0\r\nConnection: close\r\n\r\n") }
    }

    static let nothingListens = URL(string: "http://127.0.0.1:1/")!

    @Test func aSoundCertificatePassesEachTLSCheck() async throws {
        let checks = try await Self.checks(\.good, plain: Self.nothingListens)
        for name in [Check.Name.tlsVersion, .tlsChain, .tlsName, .tlsExpiry, .httpsRedirect] {
            #expect(checks.first { $0.name == name }?.ok == true, "\(name): \(DoctorTests.detail(name, in: checks))")
        }
        #expect(DoctorTests.detail(.tlsVersion, in: checks) == "TLSv1.3 agreed (tokencall needs TLS 1.2 or later)")
        #expect(DoctorTests.detail(.tlsChain, in: checks) == "the chain from /CN=good to /CN=TokenCall Test CA verifies")
        #expect(DoctorTests.detail(.tlsName, in: checks) == "the certificate is for 127.0.0.1: it names 127.0.0.1, localhost")
        #expect(DoctorTests.detail(.tlsExpiry, in: checks).hasSuffix(", 90 days from now"), "\(DoctorTests.detail(.tlsExpiry, in: checks))")
        #expect(DoctorTests.detail(.httpsRedirect, in: checks).hasPrefix("plain http://127.0.0.1:1/ gets no answer (cannot reach the token server: connection refused"),
                "\(DoctorTests.detail(.httpsRedirect, in: checks))")
        #expect(DoctorTests.failed(checks).isEmpty, "\(checks.filter { !$0.ok }.map(\.detail))")
    }

    @Test func theDaysLeftAreWholeDaysRoundedDown() {
        #expect(Doctor.wholeDays(90 * 86_400) == 90)
        #expect(Doctor.wholeDays(90 * 86_400 - 1) == 89)
        #expect(Doctor.wholeDays(7 * 86_400 - 1) == 6, "one second short of 7 days fails the check")
        #expect(Doctor.wholeDays(0) == 0)
        #expect(Doctor.wholeDays(-1) == -1)
        #expect(Doctor.wholeDays(-86_400) == -1)
        #expect(Doctor.wholeDays(-86_401) == -2)
    }

    @Test func aCertificateEndingWithinAWeekFailsAndWithinAMonthWarns() async throws {
        let soon = try await Self.checks(\.endsIn5Days, plain: Self.nothingListens)
        let failed = DoctorTests.detail(.tlsExpiry, in: soon)
        #expect(soon.first { $0.name == .tlsExpiry }?.ok == false)
        #expect(failed.contains(", in 5 days (less than 7) → renew it now: once it ends every client refuses the server"), "\(failed)")
        let later = try await Self.checks(\.endsIn20Days, plain: Self.nothingListens)
        let warned = try #require(later.first { $0.name == .tlsExpiry })
        #expect(warned.ok && warned.isWarning)
        #expect(warned.detail.contains(", in 20 days (less than 30) → renew it before then"), "\(warned.detail)")
        let report = DoctorReport(url: URL(string: "https://127.0.0.1")!, checks: later)
        #expect(report.text.contains("\nwarn tls-expiry: the certificate expires on "), "\(report.text)")
        #expect(report.text.hasSuffix("checks passed, 1 with a warning"), "\(report.text)")
        #expect(report.json.contains(#""name":"tls-expiry","ok":true,"warning":true"#), "\(report.json)")
    }

    @Test func eachRefusedHandshakeFailsTheCheckItIsAbout() async throws {
        let expired = try await Self.checks(\.expired, plain: Self.nothingListens)
        #expect(DoctorTests.detail(.tlsExpiry, in: expired).hasPrefix("TLS: the certificate (/CN=expired) expired on "), "\(expired.map(\.detail))")
        #expect(DoctorTests.failed(expired) == [.tlsExpiry], "the refused handshake is the one cause")
        #expect(DoctorTests.skipped(expired, because: .tlsExpiry).isSuperset(of: [.reachable, .tlsVersion, .tlsChain, .tlsName, .answer, .stampede]))

        let other = try await Self.checks(\.otherName, plain: Self.nothingListens)
        #expect(DoctorTests.detail(.tlsName, in: other)
            == "TLS: the certificate is not for 127.0.0.1: it names elsewhere.example → serve a certificate whose names include 127.0.0.1, the host clients connect to")

        let selfSigned = try await Self.checks(\.selfSigned, plain: Self.nothingListens)
        #expect(DoctorTests.detail(.tlsChain, in: selfSigned).hasPrefix(
            "TLS: the certificate (/CN=self-signed) is self-signed and not trusted; give it with --ca-file FILE if you mean to trust it → serve the certificate with its intermediates"))

        let untrusted = try await Self.checks(\.good, plain: Self.nothingListens, trust: .file(try Self.certificates.get().selfSigned.certificate))
        #expect(DoctorTests.detail(.tlsChain, in: untrusted).hasPrefix("TLS: the certificate's issuer /CN=TokenCall Test CA is not trusted"))
        for checks in [expired, other, selfSigned, untrusted] {
            #expect(DoctorTests.failed(checks).count == 1, "only the refused check fails: \(checks.filter { !$0.ok }.map(\.detail))")
            #expect(checks.first { $0.name == .reachable }?.skippedBecause != nil, "not reachable's \"check that the server runs\"")
        }
    }

    @Test func anOldTLSVersionIsRefusedInWords() async throws {
        let certificates = try Self.certificates.get()
        let front = try TLSTestServer(certificates.good, maxVersion: TLS1_1_VERSION) { _ in "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n" }
        defer { front.stop() }
        var setup = DoctorTests.setup(front.url())
        setup.plainURL = Self.nothingListens
        let checks = await Doctor(setup, transport: LoopHTTPTransport(trust: .file(certificates.caFile))).run()
        #expect(DoctorTests.detail(.tlsVersion, in: checks).hasPrefix("TLS: no TLS version in common (tokencall needs TLS 1.2 or later)"),
                "\(checks.map(\.detail))")
    }

    @Test func plainHTTPMustRedirectToHTTPSAtTheSameHost() async throws {
        let good = try Self.redirecting { "https://127.0.0.1:8443/fetch_rtc_token" }
        defer { good.stop() }
        let elsewhere = try Self.redirecting { "http://127.0.0.1/fetch_rtc_token" }
        defer { elsewhere.stop() }
        let plain = try HostileServer { $0.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}") }
        defer { plain.stop() }

        let passed = try await Self.checks(\.good, plain: good.url)
        #expect(DoctorTests.detail(.httpsRedirect, in: passed) == "plain \(good.url.absoluteString) redirects (HTTP 301) to https://127.0.0.1:8443/fetch_rtc_token",
                "\(DoctorTests.detail(.httpsRedirect, in: passed))")
        let toHTTP = try await Self.checks(\.good, plain: elsewhere.url)
        #expect(DoctorTests.detail(.httpsRedirect, in: toHTTP) == "plain \(elsewhere.url.absoluteString) redirects (HTTP 301) to "
            + "http://127.0.0.1/fetch_rtc_token, not to https://127.0.0.1 → answer plain http:// with a 301 (or 308) to the same path on "
            + "https://127.0.0.1, or serve no plain http:// at all")
        let served = try await Self.checks(\.good, plain: plain.url)
        #expect(DoctorTests.detail(.httpsRedirect, in: served).hasPrefix("plain \(plain.url.absoluteString) answers HTTP 200 without a redirect to https://"))
    }
}
