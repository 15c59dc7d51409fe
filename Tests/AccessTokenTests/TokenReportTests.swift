import Testing
import TestSupport
@testable import AccessToken

private let fx = Vectors.shared.fixtures
private let issued: UInt32 = 1_800_000_000

private func build(channel: String = "room", user: RTCUser = .uid(42), role: RTCRole = .publisher,
                   expire: UInt32 = 600, salt: UInt32 = 3) throws -> String {
    try AccessToken2.buildRTC(appID: fx.app_id, appCertificate: fx.app_certificate, channel: channel, user: user,
                              role: role, tokenExpire: expire, privilegeExpire: min(expire, 86_400),
                              issuedAt: issued, salt: salt)
}

private func report(_ token: String, certificate: String? = fx.app_certificate, channel: String? = "room",
                    user: RTCUser? = .uid(42), at now: Int64 = Int64(issued) + 10) -> TokenReport {
    TokenReport(inspecting: token, check: TokenCheck(appCertificate: certificate, channel: channel, user: user), now: now)
}

@Suite struct TokenReportTests {
    @Test func explainsAGoodTokenFieldByField() throws {
        let report = report(try build())
        #expect(report.isValid)
        #expect(report.version == "007")
        #expect(report.appID == fx.app_id)
        #expect(report.secondsLeft == 590)
        #expect(report.signature == .valid)
        #expect(report.channelMatches == true && report.uidMatches == true)
        #expect(report.rtc?.privileges.map(\.name) == ["joinChannel", "publishAudioStream", "publishVideoStream", "publishDataStream"])
        let text = report.text
        #expect(text.contains("issued at   2027-01-15T08:00:00Z (1800000000)"))
        #expect(text.contains("590 s left (9 min 50 s)"))
        #expect(text.contains("channel \"room\"  uid 42"))
        #expect(text.contains("signature   valid"))
        #expect(text.contains("verdict     valid for what was asked"))
    }

    @Test func catchesAWrongCertificate() throws {
        let report = report(try build(), certificate: String(repeating: "a", count: 32))
        #expect(!report.isValid)
        #expect(report.signature == .invalid)
        #expect(report.text.contains("signature   INVALID"))
        #expect(report.problems.contains { $0.contains("different App Certificate") })
    }

    @Test func saysHowLongAgoItExpired() throws {
        let report = report(try build(), at: Int64(issued) + 725)
        #expect(!report.isValid)
        #expect(report.text.contains("expired 125 s ago"))
        #expect(report.problems.contains { $0.hasPrefix("it expired 2 min 5 s ago") })
    }

    @Test func tellsAStringAccountFromAnIntegerUid() throws {
        let accountToken = report(try build(user: .account("alice")), user: .uid(42))
        #expect(accountToken.problems.contains { $0.contains("user account \"alice\" (a string)") })
        let uidToken = report(try build(user: .uid(42)), user: .account("bob"))
        #expect(uidToken.problems.contains { $0.contains("integer uid 42, but you join with the account \"bob\"") })
        let zeroAccount = report(try build(user: .account("0")), user: .uid(7))
        #expect(zeroAccount.problems.contains { $0.contains("account \"0\" (a string), which is not the wildcard") })
        let zeroAccountJoinedAsZero = report(try build(user: .account("0")), user: .uid(0))
        #expect(zeroAccountJoinedAsZero.problems.contains { $0.contains("account \"0\" (a string), which is not the wildcard") })
        #expect(!zeroAccountJoinedAsZero.problems.contains { $0.contains("build the token with uid 0 (any uid)") })
        let randomUid = report(try build(user: .uid(42)), user: .uid(0))
        #expect(randomUid.problems.contains { $0.contains("you join with uid 0") })
        let wildcard = report(try build(user: .uid(0)), user: .uid(7))
        #expect(wildcard.isValid)
        #expect(wildcard.text.contains("any uid (0)"))
    }

    @Test func pointsOutAChannelThatDiffersOnlyInCase() throws {
        let report = report(try build(channel: "Room"))
        #expect(report.channelMatches == false)
        #expect(report.problems.contains { $0.contains("differ only in letter case") })
    }

    @Test func repairsWhatTransportsDoToTokensButStillFailsTheOriginal() throws {
        let token = try #require(try (UInt32(1)...500).lazy.map { try build(salt: $0) }
            .first { $0.contains("+") && $0.contains("/") && $0.hasSuffix("=") })
        let spaced = report(token.replacingAll("+", with: " "))
        let urlEncoded = report(token.replacingOccurrences("+", "%2B").replacingOccurrences("/", "%2F").replacingOccurrences("=", "%3D"))
        let quoted = report("\"\(token)\"\n")
        for repaired in [spaced, urlEncoded, quoted] {
            #expect(repaired.version == "007")
            #expect(!repaired.isValid)
            #expect(repaired.signature == .valid)
        }
        #expect(spaced.problems.contains { $0.contains("spaces where '+' belongs") })
        #expect(urlEncoded.problems.contains { $0.contains("URL-encoded") })
        #expect(quoted.problems.contains { $0.contains("whitespace or quotes") })
    }

    @Test func recognisesAnAppIDPassedAsAToken() {
        let report = report(fx.app_id)
        #expect(report.version == nil)
        #expect(report.problems.contains { $0.contains("an App ID or an App Certificate, not a token") })
        #expect(report.text.contains("token       not readable"))
    }

    @Test func flagsAnExpireThatLooksLikeAUnixTime() throws {
        let token = AccessToken2(appID: fx.app_id, issuedAt: issued, expire: 1_800_000_600, salt: 1,
                                 services: [.rtc(channel: "room", user: .uid(42), role: .publisher, privilegeExpire: 600)])
        let report = report(try token.build(appCertificate: fx.app_certificate))
        #expect(report.problems.contains { $0.contains("looks like a unix time") })
    }

    @Test func explains006AndItsChecksums() {
        let vector = Vectors.shared.v006[0]
        let full = TokenReport(inspecting: vector.token, check: TokenCheck(
            appCertificate: fx.app_certificate, channel: fx.channel_name, user: .uid(fx.uid)), now: 1_000_000)
        #expect(full.version == "006")
        #expect(full.isValid)
        #expect(full.signature == .valid)
        #expect(full.notes.contains { $0.contains("006 AccessToken") })
        let partial = TokenReport(inspecting: vector.token, check: TokenCheck(appCertificate: fx.app_certificate), now: 1_000_000)
        #expect(partial.signature == .needsChannelAndUid)
        let wrongUid = TokenReport(inspecting: vector.token, check: TokenCheck(channel: fx.channel_name, user: .uid(1)), now: 1_000_000)
        #expect(!wrongUid.isValid)
        #expect(wrongUid.uidMatches == false)
    }

    @Test func theTests006BuilderMakesTheOfficialVector() {
        let vector = Vectors.shared.v006[0]
        #expect(Legacy006.token(appID: fx.app_id, certificate: fx.app_certificate, channel: fx.channel_name, uid: String(vector.uid), salt: vector.salt,
                                messageExpiresAt: vector.ts, privileges: [1], privilegesExpireAt: 1_446_455_471) == vector.token)
    }

    /// Tutorial Flask servers pass the uid on as text, so uid 0 becomes the account "0": a 006 token whose checksum and
    /// signature are the account's. The report says whom it is for, and blames the certificate only when it is wrong.
    @Test func a006TokenForTheAccount0IsNamedNotBlamedOnTheCertificate() {
        let token = Legacy006.token(appID: fx.app_id, certificate: fx.app_certificate, channel: "room", uid: "0",
                                    messageExpiresAt: issued + 86_400, privilegesExpireAt: issued + 3600)
        let asUID0 = report(token, user: .uid(0))
        #expect(asUID0.signature == .valid)
        #expect(asUID0.uidMatches == false)
        #expect(asUID0.rtc?.user == "0")
        #expect(asUID0.problems == ["the token is for the account \"0\" (a string), which is not the wildcard: build it with the integer uid 0 "
            + "to allow any uid (a server that passes the uid on as text makes this)"])
        #expect(asUID0.text.contains("RTC  account \"0\""), "\(asUID0.text)")
        #expect(asUID0.text.contains("signature   valid"))
        #expect(report(token, user: .account("0")).isValid)
        let otherCertificate = report(token, certificate: String(repeating: "a", count: 32), user: .uid(0))
        #expect(otherCertificate.signature == .invalid, "with the user known, a bad signature is the certificate's")
        #expect(otherCertificate.problems.contains { $0.contains("different App Certificate") })
    }

    /// What join and the engine say of it: the user it is for, not a checksum that does not match.
    @Test func a006TokenForTheAccount0IsRefusedForUid0NamingTheAccount() throws {
        let token = try AgoraToken(parsing: Legacy006.token(appID: fx.app_id, certificate: fx.app_certificate, channel: "room", uid: "0",
                                                            messageExpiresAt: issued + 86_400, privilegesExpireAt: issued + 3600))
        #expect(throws: TokenError.uidMismatch(token: "0", expected: .uid(0))) {
            try token.validate(TokenCheck(appCertificate: fx.app_certificate, channel: "room", user: .uid(0)), now: Int64(issued))
        }
        #expect(throws: TokenError.crcMismatch(field: "uid")) {
            try token.validate(TokenCheck(channel: "room", user: .uid(42)), now: Int64(issued))
        }
    }

    /// A 006 token for a user whose checksum names neither the user asked nor its other reading: which user cannot be
    /// told, and its signature (over that user's text) cannot be checked, so the certificate is not blamed.
    @Test func a006TokenForAnUnknownUserLeavesTheSignatureUnchecked() {
        let token = Legacy006.token(appID: fx.app_id, certificate: fx.app_certificate, channel: "room", uid: "43",
                                    messageExpiresAt: issued + 86_400, privilegesExpireAt: issued + 3600)
        let asked42 = report(token)
        #expect(asked42.signature == .forAnotherUser)
        #expect(!asked42.problems.contains { $0.contains("App Certificate") })
        #expect(asked42.problems.contains { $0.hasPrefix("its uid checksum does not match uid 42: it is for another user") })
        #expect(asked42.text.contains("signature   not checked (006 signs the user, and this token is for another one)"))
        #expect(report(token, user: .uid(43)).isValid)
    }

    @Test func notesAShortLifetimeAndASubscriberRole() throws {
        let report = report(try build(role: .subscriber, expire: 35))
        #expect(report.isValid)
        #expect(report.notes.contains { $0.contains("tokenPrivilegeWillExpire") })
        #expect(report.notes.contains { $0.contains("subscriber role") })
    }
}

@Suite struct UnixTimeTests {
    @Test func formatsUTC() {
        #expect(UnixTime.iso8601(0) == "1970-01-01T00:00:00Z")
        #expect(UnixTime.iso8601(951_782_400) == "2000-02-29T00:00:00Z")
        #expect(UnixTime.iso8601(1_111_111) == "1970-01-13T20:38:31Z")
        #expect(UnixTime.iso8601(4_294_967_295) == "2106-02-07T06:28:15Z")
        #expect(UnixTime.iso8601(-1) == "1969-12-31T23:59:59Z")
    }

    @Test func spellsDurations() {
        #expect(UnixTime.duration(0) == "0 s")
        #expect(UnixTime.duration(59) == "59 s")
        #expect(UnixTime.duration(3600) == "1 h")
        #expect(UnixTime.duration(3725) == "1 h 2 min 5 s")
        #expect(UnixTime.duration(90_061) == "1 d 1 h 1 min 1 s")
    }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
