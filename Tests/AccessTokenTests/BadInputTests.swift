import Testing
@testable import AccessToken

private let fx = Vectors.shared.fixtures
private let good = Vectors.shared.v007[0].token

@Suite struct BadInputTests {
    @Test func invalidStringsAreErrorsNotCrashes() {
        #expect(throws: TokenError.badBase64) { try AgoraToken(parsing: "007invalid") }
        #expect(throws: TokenError.truncated(field: "App ID")) { try AgoraToken(parsing: "006invalid") }
        #expect(throws: TokenError.emptyToken) { try AgoraToken(parsing: "") }
        #expect(throws: TokenError.unknownVersion(prefix: "005")) { try AgoraToken(parsing: "005abc") }
        #expect(throws: TokenError.badCompression) { try AgoraToken(parsing: "007AAAA") }
    }

    @Test func aTruncatedTokenNeverParses() {
        for length in 3..<good.count {
            let cut = String(good.prefix(length))
            #expect(throws: TokenError.self, "prefix of \(length) characters") { try AgoraToken(parsing: cut) }
        }
    }

    @Test func everyTruncationOfTheContentNamesTheMissingField() throws {
        let content = try Zlib.inflate(Base64.decode(good.dropFirst(3).utf8)!)
        var fields: Set<String> = []
        for length in 0..<content.count {
            do {
                _ = try AccessToken2(content: Array(content.prefix(length)))
                Issue.record("a content of \(length) of \(content.count) bytes parsed")
            } catch {
                guard case .truncated(let field) = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                fields.insert(field)
            }
        }
        #expect(fields.isSuperset(of: ["signature", "App ID", "issue time", "expire", "salt", "service count",
                                       "service type", "privileges", "channel name", "uid"]))
    }

    @Test func aHugeInflatedBodyIsRefusedNotAllocated() {
        let bomb = Zlib.compress([UInt8](repeating: 0, count: 10_000_000))
        #expect(bomb.count < 20_000)
        #expect(throws: TokenError.inflatedTooLarge(limit: Zlib.inflateLimit)) {
            try AgoraToken(parsing: "007" + Base64.encode(bomb))
        }
    }

    @Test func aServiceTypeItCannotReadStopsParsingCleanly() throws {
        var token = AccessToken2(appID: fx.app_id, issuedAt: 1, expire: 60, salt: 1, services: [
            .rtc(channel: "c", user: .uid(1), role: .publisher, privilegeExpire: 60),
            Service(type: 9, privileges: [1: 60], detail: .none),
        ])
        let string = try token.build(appCertificate: fx.app_certificate)
        token = try AccessToken2(parsing: string)
        #expect(token.services.count == 1)
        #expect(token.unreadServiceType == 9)
        #expect(token.hasValidSignature(appCertificate: fx.app_certificate))
    }

    @Test func aGoodTokenFailsVerificationWithAnotherCertificate() throws {
        let token = try AccessToken2(parsing: good)
        #expect(!token.hasValidSignature(appCertificate: String(repeating: "a", count: 32)))
        #expect(throws: TokenError.signatureMismatch) {
            try token.validate(TokenCheck(appCertificate: String(repeating: "a", count: 32)), now: 1_111_112)
        }
    }

    @Test func flippingAnyBodyCharacterBreaksTheTokenOrItsSignature() throws {
        let characters = Array(good)
        for index in stride(from: 3, to: characters.count - 2, by: 5) {
            var altered = characters
            altered[index] = altered[index] == "A" ? "B" : "A"
            let token = try? AccessToken2(parsing: String(altered))
            #expect(token?.hasValidSignature(appCertificate: fx.app_certificate) != true, "character \(index)")
        }
    }

    @Test func base64IsStrict() {
        #expect(Base64.decode("QUJD"[...].utf8) == Array("ABC".utf8))
        #expect(Base64.decode("QUI="[...].utf8) == Array("AB".utf8))
        #expect(Base64.decode("QQ=="[...].utf8) == Array("A".utf8))
        #expect(Base64.decode("QUJ"[...].utf8) == nil)
        #expect(Base64.decode("Q=JD"[...].utf8) == nil)
        #expect(Base64.decode("QU-D"[...].utf8) == nil)
        #expect(Base64.decode("Q==="[...].utf8) == nil)
        #expect(Base64.decode("QR=="[...].utf8) == nil, "spare bits set")
        #expect(Base64.decode("QUJ="[...].utf8) == nil, "spare bits set")
        #expect(Base64.decode(""[...].utf8) == [])
        for length in 0..<10 {
            let bytes = (0..<length).map { UInt8($0 * 37 & 0xFF) }
            #expect(Base64.decode(Base64.encode(bytes)[...].utf8) == bytes)
        }
    }
}

@Suite struct ValidationTests {
    private func token(channel: String = "room", user: RTCUser = .uid(42), role: RTCRole = .publisher,
                       expire: UInt32 = 600, privilegeExpire: UInt32 = 600) throws -> AccessToken2 {
        try AccessToken2(parsing: AccessToken2.buildRTC(
            appID: fx.app_id, appCertificate: fx.app_certificate, channel: channel, user: user, role: role,
            tokenExpire: expire, privilegeExpire: privilegeExpire, issuedAt: 1_000_000, salt: 7))
    }

    private let check = TokenCheck(appID: fx.app_id, appCertificate: fx.app_certificate, channel: "room", user: .uid(42))

    @Test func aGoodTokenPassesUntilTheSecondItExpires() throws {
        let token = try token()
        #expect(throws: Never.self) { try token.validate(check, now: 1_000_000) }
        #expect(throws: Never.self) { try token.validate(check, now: 1_000_599) }
        #expect(throws: TokenError.expired(expiredAt: 1_000_600, secondsAgo: 0)) { try token.validate(check, now: 1_000_600) }
    }

    @Test func eachMismatchIsNamed() throws {
        let token = try token()
        var wrong = check
        wrong.channel = "other"
        #expect(throws: TokenError.channelMismatch(token: "room", expected: "other")) { try token.validate(wrong, now: 1_000_000) }
        wrong = check
        wrong.user = .uid(43)
        #expect(throws: TokenError.uidMismatch(token: "42", expected: .uid(43))) { try token.validate(wrong, now: 1_000_000) }
        wrong = check
        wrong.appID = String(repeating: "b", count: 32)
        #expect(throws: TokenError.appIDMismatch(token: fx.app_id, expected: wrong.appID!)) {
            try token.validate(wrong, now: 1_000_000)
        }
    }

    @Test func uidZeroInATokenFitsAnyUidButAccountZeroDoesNot() throws {
        let wildcard = try token(user: .uid(0))
        for user in [RTCUser.uid(1), .uid(UInt32.max), .account("alice")] {
            var any = check
            any.user = user
            #expect(throws: Never.self) { try wildcard.validate(any, now: 1_000_000) }
        }
        let accountZero = try token(user: .account("0"))
        var asked = check
        asked.user = .uid(5)
        #expect(throws: TokenError.uidMismatch(token: "0", expected: .uid(5))) { try accountZero.validate(asked, now: 1_000_000) }
    }

    @Test func theJoinPrivilegeCanEndBeforeTheToken() throws {
        let token = try token(expire: 600, privilegeExpire: 60)
        #expect(token.joinExpiresAt == 1_000_060)
        #expect(throws: TokenError.joinPrivilegeExpired(expiredAt: 1_000_060, secondsAgo: 1)) {
            try token.validate(check, now: 1_000_061)
        }
        #expect(try self.token(privilegeExpire: 0).joinExpiresAt == 1_000_600)
    }

    @Test func aTokenWithoutJoinOrRTCCannotJoin() throws {
        let noJoin = AccessToken2(appID: fx.app_id, issuedAt: 1_000_000, expire: 600, salt: 1, services: [
            Service(type: 1, privileges: [2: 600], detail: .rtc(channel: "room", uid: "42"))])
        #expect(throws: TokenError.noJoinPrivilege) { try noJoin.validate(TokenCheck(), now: 1_000_000) }
        let rtmOnly = AccessToken2(appID: fx.app_id, issuedAt: 1_000_000, expire: 600, salt: 1, services: [
            Service(type: 2, privileges: [1: 600], detail: .user("42"))])
        #expect(throws: TokenError.noRTCService) { try rtmOnly.validate(TokenCheck(), now: 1_000_000) }
    }
}

@Suite struct AccessToken006Tests {
    @Test(arguments: Vectors.shared.v006)
    func readsAndVerifiesTheOfficialTokens(vector: Vectors.V006) throws {
        let token = try AccessToken006(parsing: vector.token)
        #expect(token.appID == fx.app_id)
        #expect(token.salt == vector.salt)
        #expect(token.messageExpiresAt == vector.ts)
        #expect(token.privileges == PrivilegeMap(Dictionary(uniqueKeysWithValues: vector.privileges.map { (UInt16($0.key)!, $0.value) })))
        let user = RTCUser.uid(vector.uid)
        #expect(token.matches(channel: fx.channel_name))
        #expect(token.matches(user: user))
        #expect(token.hasValidSignature(appCertificate: fx.app_certificate, channel: fx.channel_name, user: user))
        #expect(!token.hasValidSignature(appCertificate: String(repeating: "a", count: 32), channel: fx.channel_name, user: user))
        #expect(!token.matches(channel: "other"))
    }

    @Test func aUidZeroTokenFitsAnyUid() throws {
        let token = try AccessToken006(parsing: Vectors.shared.v006[1].token)
        #expect(token.isForAnyUID)
        #expect(token.matches(user: .uid(99)))
        #expect(token.hasValidSignature(appCertificate: fx.app_certificate, channel: fx.channel_name, user: .uid(99)))
        let specific = try AccessToken006(parsing: Vectors.shared.v006[0].token)
        #expect(!specific.matches(user: .uid(99)))
    }

    @Test func validationChecksCRCsSignatureAndExpiry() throws {
        let token = try AgoraToken(parsing: Vectors.shared.v006[0].token)
        let check = TokenCheck(appCertificate: fx.app_certificate, channel: fx.channel_name, user: .uid(fx.uid))
        #expect(throws: Never.self) { try token.validate(check, now: 1_000_000) }
        #expect(throws: TokenError.expired(expiredAt: 1_111_111, secondsAgo: 0)) { try token.validate(check, now: 1_111_111) }
        var wrong = check
        wrong.channel = "x"
        #expect(throws: TokenError.crcMismatch(field: "channel")) { try token.validate(wrong, now: 1_000_000) }
        wrong = check
        wrong.appCertificate = String(repeating: "a", count: 32)
        #expect(throws: TokenError.signatureMismatch) { try token.validate(wrong, now: 1_000_000) }
    }
}
