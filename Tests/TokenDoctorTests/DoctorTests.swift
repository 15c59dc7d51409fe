import AccessToken
import Foundation
import TestSupport
import Testing
import TokenClient
import TokenDoctor
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

    static func failed(_ checks: [Check]) -> Set<Check.Name> { Set(checks.filter { !$0.ok }.map(\.name)) }

    static func detail(_ name: Check.Name, in checks: [Check]) -> String { checks.first { $0.name == name }?.detail ?? "(not run)" }

    @Test(arguments: HTTPTokenProvider.Shape.named.map(\.shape))
    func theSoundServerPassesEveryCheck(shape: HTTPTokenProvider.Shape) async throws {
        let server = try TokenServer(TokenServerConfig(port: 0, appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                                       requiredBearer: Self.bearer, corsOrigins: [MistakenTokenServer.origin]))
        defer { server.stop() }
        let checks = await Doctor(Self.setup(server.url, shape: shape, bearer: Self.bearer)).run()
        #expect(checks.filter { !$0.ok }.map(\.detail) == [])
        let ran = Set(Check.Name.allCases).subtracting(shape.hasPing ? [] : [.ping])
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
        var setup = Self.setup(server.url)
        setup.slowestP99 = .milliseconds(100)
        let checks = await Doctor(setup).run()
        #expect(Self.failed(checks) == [.latency])
        #expect(Self.detail(.latency, in: checks).contains(" over 20 requests, slower than 100 ms → "))
    }

    @Test func aServerWithoutPingFailsThePingCheckOfShapesThatHaveOne() async throws {
        let server = try MistakenTokenServer(.noPing)
        let checks = await Doctor(Self.setup(server.url.appendingPathComponent("getToken"), shape: .getToken)).run()
        #expect(Self.failed(checks) == [.ping])
        #expect(Self.detail(.ping, in: checks).hasPrefix("GET /ping: HTTP 404, \"{\"error\":\"no such endpoint\"}\" → answer GET /ping"))
    }

    @Test func aServerThatErrsEveryOtherTimeFailsWithTheStatusAndAnExcerpt() async throws {
        let server = try MistakenTokenServer(.errorsEveryOther)
        let checks = await Doctor(Self.setup(server.url)).run()
        #expect(checks.first { $0.name == .answer }?.ok == true)
        #expect(Self.failed(checks).isSuperset(of: [.latency, .stampede]))
        #expect(Self.detail(.latency, in: checks).contains(" of 20 requests failed, the first: HTTP 500, \"{\"error\":\"something went wrong\"}\""))
    }

    @Test func anHTMLAnswerFailsTheAnswerCheckWithAnExcerpt() async throws {
        let server = try MistakenTokenServer(.answersHTML)
        let checks = await Doctor(Self.setup(server.url)).run()
        #expect(Self.detail(.answer, in: checks).hasPrefix("HTTP 200, \"<html><body><h1>Welcome to nginx!</h1></body></h…\": "))
        #expect(Self.detail(.answer, in: checks).contains("it is HTML, not JSON"))
        #expect(!checks.contains { [.token, .audience, .lifetime, .renewal].contains($0.name) })
    }

    @Test func whatTheServerSendsIsPrintedEscaped() async throws {
        let server = try MistakenTokenServer(.errorsWithEscapes)
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
        let checks = await Doctor(Self.setup(server.url)).run()
        #expect(Self.failed(checks) == [.token, .stampede])
        #expect(Self.detail(.token, in: checks).contains("cut short or altered → send the token exactly as Agora's builder returns it"))
        #expect(!checks.contains { [.audience, .signature, .lifetime, .clock, .renewal].contains($0.name) })
    }

    @Test func aServerThatNeverAnswersFailsReachableWithinTheDeadline() async throws {
        let server = try MistakenTokenServer(.silent)
        let checks = await Doctor(Self.setup(server.url, timeout: .seconds(1))).run()
        #expect(checks.map(\.name) == [.reachable])
        #expect(Self.detail(.reachable, in: checks).hasPrefix("the token server did not answer within 1 s"))
    }

    /// Read with FoundationNetworking in the doctor's own process, these answers would end it (#5285).
    @Test func answersThatCrashSwiftsHTTPClientAreCheckedNotFatal() async throws {
        let cut = try HostileServer { $0.write("HTTP/1.1 200 OK\r\nX-Slow: aaa") }
        defer { cut.stop() }
        let checks = await Doctor(Self.setup(cut.url)).run()
        #expect(checks.map(\.name) == [.reachable])
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
        #expect(checks.map { $0["name"] as? String } == Check.Name.allCases.filter { $0 != .ping }.map(\.rawValue))
        #expect(checks.filter { $0["ok"] as? Bool == false }.map { $0["name"] as? String } == ["signature"])
        #expect(checks.allSatisfy { ($0["detail"] as? String)?.isEmpty == false })
    }
}
