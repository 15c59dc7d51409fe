import AccessToken
import TestSupport
import Testing
import TokenClient

private let now: Double = 1_800_000_000

/// A token for channel "test", uid 0, issued at `now` and lasting `lifetime` s.
private func token(lifetime: UInt32 = 600, channel: String = "test", user: RTCUser = .uid(0)) throws -> String {
    try AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, channel: channel, user: user,
                              role: .publisher, tokenExpire: lifetime, privilegeExpire: lifetime, issuedAt: UInt32(now), salt: 7)
}

@Suite struct PastedTokenTests {
    @Test func aBodyIsATokenAloneOnlyWhenItHoldsNothingElse() throws {
        let text = try token()
        #expect(PastedToken.alone(in: Array("\r\n \(text)\n".utf8)) == text)
        #expect(PastedToken.alone(in: Array("006970CA35de60c44645bbae8a215061b33IACw1o7h=".utf8)) == "006970CA35de60c44645bbae8a215061b33IACw1o7h=")
        for body in ["", " \n", "\"\(text)\"", "{\"token\":\"\(text)\"}", "<p>\(text)</p>", "Bearer \(text)", "\(text) \(text)",
                     "005\(text.dropFirst(3))", "\(text)\u{0}", String(repeating: "7", count: 5000)] {
            #expect(PastedToken.alone(in: Array(body.utf8)) == nil, "\(body.prefix(20))")
        }
    }

    @Test func aTokenPastedWithItsLineBreakIsReadBare() throws {
        let text = try token()
        let pasted = try PastedToken("  \(text)\r\n", unixTime: now)
        #expect(pasted.token == text)
        #expect(pasted.expiresAt == Int64(now) + 600)
        #expect(pasted.channel == "test")
    }

    @Test func anOlder006TokenIsFine() throws {
        // Agora's published 006 vector: uid 0, join privilege until 1446455471.
        let text = "006970CA35de60c44645bbae8a215061b33IACw1o7htY6ISdNRtku3p9tjTPi0jCKf9t49UHJhzCmL6bdIfRAAAAAAEAABAAAAR/QQAAEAAQCvKDdW"
        let pasted = try PastedToken(text, unixTime: 1_000_000)
        #expect(pasted.parsed.appID == TestCredentials.appID)
        #expect(pasted.channel == nil, "a 006 token keeps only a checksum of its channel")
    }

    @Test func eachBadPasteIsNamedWithoutEchoingTheToken() throws {
        let good = try token()
        let cases: [(String, PastedTokenError, String)] = [
            ("", .empty, "no token was given"),
            (" \n", .empty, "no token was given"),
            ("Bearer \(good)", .bearerPrefix, "without the Authorization scheme"),
            ("\"\(good)\"", .quoted, "without them"),
            (String(good.prefix(60)) + "\n" + String(good.dropFirst(60)), .whitespaceInside, "as one line"),
            (TestCredentials.certificate, .hexIdentifier, "not a token"),
            (String(repeating: "A", count: 5000), .tooLong(characters: 5000), "paste the token alone"),
            (String(good.prefix(41)), .notAToken(.badBase64), "changed it in transit"),
            ("hello", .notAToken(.unknownVersion(prefix: "hel")), "not a known version"),
        ]
        for (text, error, words) in cases {
            #expect(throws: error) { try PastedToken(text, unixTime: now) }
            #expect(error.description.contains(words))
            #expect(!error.description.contains(good.dropFirst(7).prefix(20)))
            #expect(!error.description.contains(TestCredentials.certificate))
        }
    }

    @Test func anExpiredTokenIsRefusedWithHowLongAgo() throws {
        let text = try token(lifetime: 60)
        let error = try #require(throws: PastedTokenError.self) { try PastedToken(text, unixTime: now + 100) }
        #expect(error == .unusable(.expired(expiredAt: Int64(now) + 60, secondsAgo: 40)))
        #expect(error.description == "it cannot join: the token expired 40 s ago; fetch a new one")
    }

    @Test func anotherChannelOrUidIsAMismatchNotAParseError() throws {
        let request = TokenRequest(channel: "test", user: .uid(42), appID: TestCredentials.appID)
        #expect(try PastedToken(token(), unixTime: now).mismatch(with: request, unixTime: now) == nil, "uid 0 admits any uid")
        let other = try PastedToken(token(channel: "lobby"), unixTime: now)
        #expect(other.mismatch(with: request, unixTime: now) == "the token was built for channel \"lobby\", not \"test\"")
        let someoneElse = try PastedToken(token(user: .uid(7)), unixTime: now)
        #expect(someoneElse.mismatch(with: request, unixTime: now) == "the token was built for uid 7, but you join as uid 42: build the token for the uid you join with")
        var otherApp = request
        otherApp.appID = String(repeating: "a", count: 32)
        #expect(try PastedToken(token(), unixTime: now).mismatch(with: otherApp, unixTime: now)?.contains("App ID") == true)
    }

    @Test func whatAPersonSeesIsTheStartAndTheLength() {
        #expect(PastedToken.abbreviated("007eJxTYqCAAo") == "007eJxT…(13 chars)")
        #expect(PastedToken.abbreviated("007eJx") == "007eJx")
        #expect(PastedToken.abbreviated("") == "")
    }
}
