import AccessToken
import Foundation
import Synchronization
import TestSupport
import Testing
@testable import TokenServer
@testable import WebServer

let now: UInt32 = 1_800_000_000

func startServer(lifetime: UInt32 = 3600, bearer: String? = nil, cors: [String] = [], maxConnections: Int = 256,
                 perAddress: Int = 64, deadline: Duration = .seconds(10), log: LogLines? = nil) throws -> TokenServer {
    let write: (@Sendable (String) -> Void)? = log.map { lines in { @Sendable line in lines.append(line) } }
    var config = TokenServerConfig(port: 0, appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, tokenLifetime: lifetime,
                                   requiredBearer: bearer, corsOrigins: cors, maxConnections: maxConnections,
                                   log: write, unixTime: { now })
    config.requestDeadline = deadline
    config.maxConnectionsPerAddress = perAddress
    return try TokenServer(config)
}

/// The token in an answer, read back with the token library and checked against the certificate.
func verifiedToken(_ response: RawClient.Response?, field: String = "token") throws -> AccessToken2 {
    let string = try #require(response?.json?[field] as? String)
    let token = try AccessToken2(parsing: string)
    #expect(token.hasValidSignature(appCertificate: TestCredentials.certificate))
    #expect(token.appID == TestCredentials.appID)
    #expect(token.issuedAt == now)
    return token
}

@Suite struct EndpointTests {
    /// RFC 9110 asks an origin server with a clock for a `Date`; the doctor's clock check compares tokens with it.
    @Test func everyAnswerCarriesTheServersDate() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        for (method, path) in [("GET", "/ping"), ("GET", "/nowhere"), ("POST", "/fetch_rtc_token")] {
            let response = client.request(method, path, body: method == "POST" ? #"{"uid": 1, "channelName": "test", "role": 1}"# : nil)
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            let date = try #require(response?.headers["date"].flatMap(formatter.date(from:)), "\(path): \(response?.headers ?? [:])")
            #expect(abs(date.timeIntervalSinceNow) < 5, "\(path): \(date)")
        }
    }

    @Test func fetchRTCTokenAnswersTheGuidesShape() throws {
        let server = try startServer(lifetime: 40)
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let response = client.request("POST", "/fetch_rtc_token", body: #"{"uid": 1234, "channelName": "test", "role": 1}"#)
        #expect(response?.status == 200)
        #expect(response?.headers["cache-control"] == "no-store")
        #expect(response?.headers["content-type"] == "application/json")
        #expect(response?.json?["expiresIn"] as? Int == 40)
        let token = try verifiedToken(response)
        #expect(token.expire == 40)
        #expect(token.rtc?.channel == "test")
        #expect(token.rtc?.uid == "1234")
        #expect(token.rtc?.privileges == [1: 40, 2: 40, 3: 40, 4: 40])

        let subscriber = client.request("POST", "/fetch_rtc_token", body: #"{"uid": 0, "ChannelName": "test", "role": 2}"#)
        let subscriberToken = try verifiedToken(subscriber)
        #expect(subscriberToken.rtc?.uid == "")
        #expect(subscriberToken.rtc?.privileges == [1: 40])
    }

    @Test func getTokenAnswersAgoraTokenServicesShape() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let byUid = client.request("POST", "/getToken",
                                   body: #"{"tokenType": "rtc", "channel": "room", "role": "subscriber", "uid": "42", "expire": 600}"#)
        let token = try verifiedToken(byUid)
        #expect(token.rtc?.uid == "42")
        #expect(token.expire == 600)
        #expect(token.rtc?.privileges == [1: 600])
        let byAccount = client.request("POST", "/getToken",
                                       body: #"{"tokenType": "rtc", "channel": "room", "role": "publisher", "uid": "alice"}"#)
        let accountToken = try verifiedToken(byAccount)
        #expect(accountToken.rtc?.uid == "alice")
        #expect(accountToken.expire == 3600)
        #expect(accountToken.rtc?.privileges.count == 4)
        let agoraSample = client.request("POST", "/getToken", body: #"{"tokenType": "rtc", "channel": "room", "role": "1", "uid": "7"}"#)
        #expect(try verifiedToken(agoraSample).rtc?.privileges.count == 4, "role \"1\" is Agora's publisher")
    }

    @Test func theRTCPathAnswersWithRtcToken() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let byUid = try verifiedToken(client.request("GET", "/rtc/room/publisher/uid/99/?expiry=120"), field: "rtcToken")
        #expect(byUid.rtc?.uid == "99")
        #expect(byUid.expire == 120)
        let byAccount = try verifiedToken(client.request("GET", "/rtc/room/2/userAccount/123/"), field: "rtcToken")
        #expect(byAccount.rtc?.uid == "123")
        #expect(byAccount.rtc?.privileges == [1: 3600])
    }

    @Test func pingSaysPong() throws {
        let server = try startServer(bearer: "secret")
        defer { server.stop() }
        let response = try RawClient(port: server.port).request("GET", "/ping")
        #expect(response?.status == 200)
        #expect(response?.json?["message"] as? String == "pong")
    }
}

@Suite struct BadRequestTests {
    static let cases: [(String, String, String, Int, String)] = [
        ("malformed JSON", "/fetch_rtc_token", "{uid: 1", 400, "not valid JSON"),
        ("not an object", "/fetch_rtc_token", "[1, 2]", 400, "not a JSON object"),
        ("missing channel", "/fetch_rtc_token", #"{"uid": 1}"#, 400, "channelName is missing"),
        ("mistyped channel", "/fetch_rtc_token", #"{"uid": 1, "channelName": 5}"#, 400, "channelName must be a string"),
        ("uid as float", "/fetch_rtc_token", #"{"uid": 1.5, "channelName": "a"}"#, 400, "uid must be an integer from 0 to 4294967295, not 1.5"),
        ("an account in fetch", "/fetch_rtc_token", #"{"uid": "alice", "channelName": "a"}"#, 400,
         "carries integer uids, as Agora's guide server reads them; for a user account ask POST /getToken"),
        ("uid as bool", "/fetch_rtc_token", #"{"uid": true, "channelName": "a"}"#, 400, "uid must be an integer"),
        ("negative uid", "/fetch_rtc_token", #"{"uid": -1, "channelName": "a"}"#, 400, "not -1"),
        ("uid 2^32", "/fetch_rtc_token", #"{"uid": 4294967296, "channelName": "a"}"#, 400, "not 4294967296"),
        ("uid 2^32 as a string", "/getToken", #"{"tokenType": "rtc", "channel": "a", "uid": "4294967296"}"#, 400, "not 4294967296"),
        ("bad role", "/fetch_rtc_token", #"{"uid": 1, "channelName": "a", "role": 3}"#, 400, "role must be publisher, subscriber, 1 or 2, not 3"),
        ("negative uid as a string", "/getToken", #"{"tokenType": "rtc", "channel": "a", "uid": "-5"}"#, 400, "not -5"),
        ("bad channel", "/fetch_rtc_token", #"{"uid": 1, "channelName": "a/b"}"#, 400, "invalid channel name"),
        ("long channel", "/fetch_rtc_token", #"{"uid": 1, "channelName": "\#(String(repeating: "x", count: 64))"}"#, 400, "63 at most"),
        ("rtm token", "/getToken", #"{"tokenType": "rtm", "channel": "a", "uid": "1"}"#, 400, "only \"rtc\""),
        ("lifetime 0", "/getToken", #"{"tokenType": "rtc", "channel": "a", "uid": "1", "expire": 0}"#, 400, "from 1 to 86400"),
        ("lifetime too long", "/getToken", #"{"tokenType": "rtc", "channel": "a", "uid": "1", "expire": 86401}"#, 400, "from 1 to 86400"),
        ("empty body", "/fetch_rtc_token", "", 400, "body is empty"),
        ("uid past Int64", "/fetch_rtc_token", #"{"uid": 9223372036854775808, "channelName": "t"}"#, 400, "not 9223372036854775808"),
        ("uid 0.0", "/fetch_rtc_token", #"{"uid": 0.0, "channelName": "t"}"#, 400, "uid must be an integer from 0 to 4294967295, not 0.0"),
        ("uid -0", "/fetch_rtc_token", #"{"uid": -0, "channelName": "t"}"#, 400, "not -0"),
        ("uid 1e-400", "/fetch_rtc_token", #"{"uid": 1e-400, "channelName": "t"}"#, 400, "not 1e-400"),
        ("uid a hair above 2^32-1", "/fetch_rtc_token", #"{"uid": 4294967295.0000001, "channelName": "t"}"#, 400, "not 4294967295.0000001"),
        ("trailing comma", "/fetch_rtc_token", #"{"uid": 1, "channelName": "t",}"#, 400, "not valid JSON: a trailing comma at byte 30"),
        ("byte-order mark", "/fetch_rtc_token", "\u{FEFF}" + #"{"uid": 1, "channelName": "t"}"#, 400, "byte-order mark"),
        ("repeated key", "/fetch_rtc_token", #"{"uid": 1, "uid": 0, "channelName": "t"}"#, 400, "a key given twice"),
        ("role past Int64", "/getToken", #"{"tokenType": "rtc", "channel": "a", "uid": "1", "role": 99999999999999999999}"#, 400,
         "role must be publisher, subscriber, 1 or 2, not 99999999999999999999"),
        ("expire past Int64", "/getToken", #"{"tokenType": "rtc", "channel": "a", "uid": "1", "expire": 99999999999999999999}"#, 400,
         "from 1 to 86400"),
    ]

    /// Numbers of any size in any field of any route: a 400 each, and the server still answers.
    @Test func hugeNumbersAnywhereAreRefusedAndTheServerLives() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let numbers = ["9223372036854775808", "-9223372036854775809", "18446744073709551616", String(repeating: "9", count: 400),
                       "1e999999999999", "-1e-999999999999", "1" + String(repeating: "0", count: 300) + ".5"]
        for number in numbers {
            for body in [#"{"uid": \#(number), "channelName": "t"}"#, #"{"uid": 1, "channelName": "t", "role": \#(number)}"#,
                         #"{"uid": 1, "channelName": \#(number)}"#] {
                #expect(client.request("POST", "/fetch_rtc_token", body: body)?.status == 400, "\(body.prefix(60))")
            }
            for field in ["uid", "role", "expire", "channel"] {
                var members = [#""tokenType": "rtc""#, #""channel": "a""#, #""uid": "1""#].filter { !$0.hasPrefix("\"\(field)\"") }
                members.append(#""\#(field)": \#(number)"#)
                #expect(client.request("POST", "/getToken", body: "{" + members.joined(separator: ", ") + "}")?.status == 400, "\(field)")
            }
            let digits = number.filter(\.isNumber).prefix(200)
            #expect(client.request("GET", "/rtc/a/publisher/uid/\(digits)/")?.status == 400)
            #expect(client.request("GET", "/rtc/a/publisher/uid/1/?expiry=\(digits)")?.status == 400)
        }
        #expect(client.request("GET", "/ping")?.status == 200)
    }

    @Test(arguments: cases.map { ($0.0, $0.1, $0.2, $0.3, $0.4) })
    func badFieldsGetAClearJSONError(name: String, path: String, body: String, status: Int, words: String) throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let response = client.request("POST", path, body: body)
        #expect(response?.status == status, "\(name)")
        let message = try #require(response?.json?["error"] as? String, "\(name)")
        #expect(message.contains(words), "\(name): \(message)")
        #expect(client.request("GET", "/ping")?.status == 200, "the connection stays usable after a 400")
    }

    @Test func pathErrors() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        #expect(client.request("GET", "/rtc/room/publisher/uid/99/?expiry=0")?.status == 400)
        #expect(client.request("GET", "/rtc/room/host/uid/99/")?.status == 400)
        #expect(client.request("GET", "/rtc/room/publisher/email/99/")?.status == 400)
        #expect(client.request("GET", "/rtc/room/publisher/uid/-1/")?.status == 400)
        let missing = client.request("GET", "/nothing/here")
        #expect(missing?.status == 404)
        #expect(missing?.headers["cache-control"] == "no-store")
        let wrongMethod = client.request("GET", "/fetch_rtc_token")
        #expect(wrongMethod?.status == 405)
        #expect(wrongMethod?.headers["allow"] == "POST")
        #expect(client.request("POST", "/ping", body: "{}")?.status == 405)
    }

    @Test func aBearerIsRequiredWhenConfiguredAndComparedExactly() throws {
        let server = try startServer(bearer: "s3cret-credential")
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let body = #"{"uid": 1, "channelName": "a"}"#
        let none = client.request("POST", "/fetch_rtc_token", body: body)
        #expect(none?.status == 401)
        #expect(none?.headers["www-authenticate"] == "Bearer")
        for wrong in ["Bearer nope", "Bearer s3cret-credentia", "Bearer s3cret-credential2", "Basic s3cret-credential", "s3cret-credential"] {
            #expect(client.request("POST", "/fetch_rtc_token", body: body, headers: ["Authorization": wrong])?.status == 401, "\(wrong)")
        }
        let right = client.request("POST", "/fetch_rtc_token", body: body, headers: ["Authorization": "Bearer s3cret-credential"])
        #expect(right?.status == 200)
        #expect(client.request("GET", "/rtc/a/publisher/uid/1/", headers: ["Authorization": "bearer s3cret-credential"])?.status == 200)
    }

    @Test func constantTimeComparisonIsExact() {
        #expect(TokenRoutes.equalInConstantTime(Array("abc".utf8), Array("abc".utf8)))
        #expect(!TokenRoutes.equalInConstantTime(Array("abc".utf8), Array("abd".utf8)))
        #expect(!TokenRoutes.equalInConstantTime(Array("abc".utf8), Array("abcd".utf8)))
        #expect(!TokenRoutes.equalInConstantTime([], Array("a".utf8)))
    }
}
