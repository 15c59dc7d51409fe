import Foundation
import Testing
@testable import AccessToken

private let fx = Vectors.shared.fixtures
private let issued: UInt32 = 1_800_000_000

/// The service layouts Agora's builders published for Streaming (3), FCDN (6) and RTM2 (8), and services a builder
/// added twice: read, checked and explained, never stopped at.
@Suite struct ServiceLayoutTests {
    static let rtm2Grants = [
        RTM2Permission(resourceType: 0, permissionType: 0, resources: ["lobby", "news"]),
        RTM2Permission(resourceType: 0, permissionType: 1, resources: ["lobby"]),
        RTM2Permission(resourceType: 4, permissionType: 0, resources: ["carol"]),
    ]

    static func token() throws -> (AccessToken2, String) {
        let services = [
            Service.rtc(channel: "room", user: .uid(42), role: .publisher, privilegeExpire: 600),
            Service(type: ServiceType.streaming.rawValue, privileges: PrivilegeMap(ids: [1, 2], value: 600),
                    detail: .stream(channel: "live", account: "alice")),
            Service(type: ServiceType.fcdn.rawValue, privileges: PrivilegeMap(ids: [2], value: 300), detail: .stream(channel: "cdn", account: "")),
            Service(type: ServiceType.rtm2.rawValue, privileges: PrivilegeMap(ids: [1], value: 600),
                    detail: .rtm2(user: "bob", permissions: rtm2Grants)),
            Service.rtc(channel: "other", user: .uid(7), role: .subscriber, privilegeExpire: 600),
        ]
        let token = AccessToken2(appID: fx.app_id, issuedAt: issued, expire: 600, salt: 9, services: services)
        return (token, try token.build(appCertificate: fx.app_certificate))
    }

    @Test func everyPublishedServiceIsReadBackAsBuiltAndSigned() throws {
        let (built, text) = try Self.token()
        let parsed = try AccessToken2(parsing: text)
        #expect(parsed.unreadServiceType == nil)
        #expect(parsed.services.map(\.type) == [1, 1, 3, 6, 8], "by type, a repeated one kept in the order added")
        #expect(parsed.services.filter { $0.type != 1 } == built.services.filter { $0.type != 1 })
        #expect(parsed.services.compactMap(\.channel) == ["room", "other"])
        #expect(parsed.hasValidSignature(appCertificate: fx.app_certificate))
    }

    @Test func inspectExplainsThemInWordsAndJSON() throws {
        let (_, token) = try Self.token()
        let report = TokenReport(inspecting: token, check: TokenCheck(appCertificate: fx.app_certificate, channel: "room", user: .uid(42)),
                                 now: Int64(issued) + 10)
        #expect(report.isValid)
        #expect(report.notes.contains { $0.hasPrefix("it holds the RTC service 2 times") && $0.hasSuffix("the first is the one checked here") })
        let text = report.text
        #expect(text.contains("Streaming  channel \"live\"  user \"alice\""))
        #expect(text.contains("publishMixStream"))
        #expect(text.contains("FCDN  channel \"cdn\"  user \"\""))
        #expect(text.contains("  play "))
        #expect(text.contains("RTM2  user \"bob\""))
        #expect(text.contains("  read messageChannels   \"lobby\", \"news\""))
        #expect(text.contains("  write messageChannels  \"lobby\""))
        #expect(text.contains("  read users             \"carol\""))
        #expect(!text.contains("cannot read past"))

        let json = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(report)) as? [String: Any])
        let services = try #require(json["services"] as? [[String: Any]])
        let rtm2 = try #require(services.first { $0["type"] as? Int == 8 })
        let grants = try #require(rtm2["permissions"] as? [[String: Any]])
        #expect(grants.map { $0["name"] as? String } == ["read messageChannels", "write messageChannels", "read users"])
        #expect(grants.first?["resources"] as? [String] == ["lobby", "news"])
        #expect(services.first { $0["type"] as? Int == 3 }?["user"] as? String == "alice")
    }

    @Test func aTruncatedRTM2GrantListIsAnErrorNotACrash() throws {
        let (built, _) = try Self.token()
        var content = [UInt8](repeating: 0, count: 2) + built.signingInfo()
        content.removeLast(3)
        #expect(throws: TokenError.self) { try AccessToken2(content: content) }
    }
}
