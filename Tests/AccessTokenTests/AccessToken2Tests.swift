import TestSupport
import Testing
@testable import AccessToken

private let vectors = Vectors.shared
private let fx = vectors.fixtures

@Suite struct AccessToken2VectorTests {
    @Test(arguments: vectors.v007.filter { $0.parse_only != true })
    func buildsOfficialStringsByteForByte(vector: Vectors.V007) throws {
        let token = AccessToken2(
            appID: fx.app_id, issuedAt: fx.issue_ts, expire: fx.expire, salt: fx.salt,
            services: [.rtc(channel: fx.channel_name, user: .uid(vector.uid!), role: .subscriber,
                            privilegeExpire: vector.privileges!["1"]!)])
        #expect(try token.build(appCertificate: fx.app_certificate) == vector.token)
    }

    @Test func buildRTCMatchesTheOfficialBuilder() throws {
        let token = try AccessToken2.buildRTC(
            appID: fx.app_id, appCertificate: fx.app_certificate, channel: fx.channel_name,
            user: .uid(fx.uid), role: .subscriber, tokenExpire: 600, privilegeExpire: 600,
            issuedAt: fx.issue_ts, salt: fx.salt)
        #expect(token == vectors.v007[0].token)
    }

    @Test(arguments: vectors.v007.filter { $0.privileges != nil })
    func parsesEveryRTCVectorIntoItsFields(vector: Vectors.V007) throws {
        let token = try AccessToken2(parsing: vector.token)
        #expect(token.appID == fx.app_id)
        #expect(token.issuedAt == fx.issue_ts)
        #expect(token.expire == fx.expire)
        #expect(token.salt == fx.salt)
        #expect(token.services.count == 1)
        let rtc = try #require(token.rtc)
        #expect(rtc.channel == fx.channel_name)
        #expect(rtc.uid == (vector.uid == 0 ? "" : String(vector.uid!)))
        let expected = PrivilegeMap(Dictionary(uniqueKeysWithValues: vector.privileges!.map { (UInt16($0.key)!, $0.value) }))
        #expect(rtc.privileges == expected)
        #expect(token.hasValidSignature(appCertificate: fx.app_certificate))
        if let hex = vector.signature_hex {
            #expect(token.signature.map { String(format: "%02x", $0) }.joined() == hex)
        }
    }

    @Test func readsTheMultiServiceToken() throws {
        let vector = try #require(vectors.v007.first { $0.name.hasPrefix("multi_service") })
        let token = try AccessToken2(parsing: vector.token)
        #expect(token.unreadServiceType == nil)
        #expect(token.services.map(\.type) == [1, 2, 4, 5, 7])
        let rtc = try #require(token.rtc)
        #expect(rtc.uid == "2882341273")
        #expect(rtc.privileges == [1: 600, 2: 600, 3: 600, 4: 600])
        #expect(token.services[1].detail == .user("2882341273"))
        #expect(token.services[3].detail == .user("2882341273"))
        #expect(token.hasValidSignature(appCertificate: fx.app_certificate))
    }

    @Test func rebuildingAParsedTokenGivesTheSameString() throws {
        for vector in vectors.v007 where vector.parse_only != true {
            let parsed = try AccessToken2(parsing: vector.token)
            #expect(try parsed.build(appCertificate: fx.app_certificate) == vector.token)
        }
    }
}

@Suite struct AccessToken2BuildTests {
    @Test func publisherGetsAllFourPrivilegesSubscriberOnlyJoin() throws {
        let publisher = try AccessToken2(parsing: AccessToken2.buildRTC(
            appID: fx.app_id, appCertificate: fx.app_certificate, channel: "room", user: .uid(7),
            role: .publisher, tokenExpire: 3600, privilegeExpire: 1800, issuedAt: 1_700_000_000, salt: 5))
        #expect(publisher.rtc?.privileges == [1: 1800, 2: 1800, 3: 1800, 4: 1800])
        #expect(publisher.expiresAt == 1_700_003_600)
        #expect(publisher.joinExpiresAt == 1_700_001_800)
        let subscriber = try AccessToken2(parsing: AccessToken2.buildRTC(
            appID: fx.app_id, appCertificate: fx.app_certificate, channel: "room", user: .uid(7),
            role: .subscriber, tokenExpire: 3600, privilegeExpire: 3600))
        #expect(subscriber.rtc?.privileges == [1: 3600])
    }

    @Test func accountStringsStayAsGivenAndUidZeroIsTheWildcard() throws {
        func uidField(_ user: RTCUser) throws -> String? {
            try AccessToken2(parsing: AccessToken2.buildRTC(
                appID: fx.app_id, appCertificate: fx.app_certificate, channel: "c", user: user,
                role: .publisher, tokenExpire: 60, privilegeExpire: 60)).rtc?.uid
        }
        #expect(try uidField(.uid(0)) == "")
        #expect(try uidField(.account("0")) == "0")
        #expect(try uidField(.account("alice")) == "alice")
        #expect(try uidField(.uid(UInt32.max)) == "4294967295")
    }

    @Test func defaultSaltIsRandomWithinAgorasRange() throws {
        let salts = try (0..<20).map { _ in
            try AccessToken2(parsing: AccessToken2.buildRTC(
                appID: fx.app_id, appCertificate: fx.app_certificate, channel: "c", user: .uid(1),
                role: .publisher, tokenExpire: 60, privilegeExpire: 60)).salt
        }
        #expect(salts.allSatisfy { (1...99_999_999).contains($0) })
        #expect(Set(salts).count > 1)
    }

    @Test(arguments: [
        (String(TestCredentials.appID.dropLast()), TestCredentials.certificate),
        (TestCredentials.appID.dropLast() + "g", TestCredentials.certificate),
        (TestCredentials.appID, String(TestCredentials.certificate.dropLast())),
        (TestCredentials.appID, TestCredentials.certificate + "b"),
    ])
    func refusesCredentialsThatAreNot32HexCharacters(appID: String, certificate: String) {
        #expect(throws: TokenError.self) {
            try AccessToken2.buildRTC(appID: appID, appCertificate: certificate, channel: "c", user: .uid(1),
                                      role: .publisher, tokenExpire: 60, privilegeExpire: 60)
        }
    }

    @Test func errorsNameTheCredentialWithoutEchoingTheCertificate() {
        let secret = String(TestCredentials.certificate.dropLast())
        #expect(throws: TokenError.invalidAppCertificate(length: 31)) {
            try AccessToken2.buildRTC(appID: fx.app_id, appCertificate: secret, channel: "c", user: .uid(1),
                                      role: .publisher, tokenExpire: 60, privilegeExpire: 60)
        }
        #expect(!TokenError.invalidAppCertificate(length: 31).description.contains(secret))
    }

    @Test(arguments: ["", String(repeating: "a", count: 64), "bad/name", "naïve"])
    func refusesChannelNamesAgoraRejects(channel: String) {
        #expect(throws: TokenError.self) {
            try AccessToken2.buildRTC(appID: fx.app_id, appCertificate: fx.app_certificate, channel: channel,
                                      user: .uid(1), role: .publisher, tokenExpire: 60, privilegeExpire: 60)
        }
    }

    @Test func acceptsEveryCharacterOfAgorasChannelAlphabet() throws {
        let name = "aZ09 !#$%&()+-:;<=.>?@[]^_{}|~,"
        #expect(throws: Never.self) { try AgoraID.validateChannelName(name) }
        #expect(throws: Never.self) { try AgoraID.validateChannelName(String(repeating: "x", count: 63)) }
    }

    @Test func refusesAPrivilegeLongerThanADay() {
        #expect(throws: TokenError.privilegeTooLong(seconds: 86_401)) {
            try AccessToken2.buildRTC(appID: fx.app_id, appCertificate: fx.app_certificate, channel: "c",
                                      user: .uid(1), role: .publisher, tokenExpire: 60, privilegeExpire: 86_401)
        }
    }
}
