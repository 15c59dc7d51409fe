import AccessToken
import TestSupport
import Testing
@testable import TokenServer
@testable import WebServer

@Suite struct MistakeTests {
    private func start(_ mistakes: TokenMistakes) throws -> TokenServer {
        var config = TokenServerConfig(port: 0, appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                       tokenLifetime: 40, unixTime: { now })
        config.mistakes = mistakes
        return try TokenServer(config)
    }

    private func token(_ client: RawClient, uid: UInt32 = 1234) throws -> String {
        let response = client.request("POST", "/fetch_rtc_token", body: #"{"uid": \#(uid), "channelName": "test", "role": 1}"#)
        #expect(response?.status == 200)
        return try #require(response?.json?["token"] as? String)
    }

    @Test(arguments: TokenMistake.allCases)
    func aCallersFirstTokenIsSoundAndTheNextCarriesTheMistake(mistake: TokenMistake) throws {
        let server = try start(TokenMistakes(mistake))
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let first = try token(client)
        let sound = try AccessToken2(parsing: first)
        try sound.validate(TokenCheck(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, channel: "test",
                                      user: .uid(1234)), now: Int64(now))
        let second = try token(client)
        let wrong = try AccessToken2(parsing: second)
        switch mistake {
        case .wrongUid:
            #expect(wrong.rtc?.uid == "1235")
            #expect(wrong.rtc?.channel == "test")
        case .wrongChannel:
            #expect(wrong.rtc?.channel == "test-other")
            #expect(wrong.rtc?.uid == "1234")
        case .wrongApp:
            #expect(wrong.appID != TestCredentials.appID)
            #expect(AgoraID.isValid(wrong.appID))
        case .stale:
            #expect(second == first, "the token handed out before, again")
        case .expired:
            #expect(wrong.expiresAt == Int64(now) - 60)
        }
        if mistake != .wrongApp { #expect(wrong.hasValidSignature(appCertificate: TestCredentials.certificate)) }
        let otherCaller = try AccessToken2(parsing: try token(client, uid: 99))
        #expect(otherCaller.rtc?.uid == "99" && otherCaller.expiresAt == Int64(now) + 40, "another caller's first token is sound")
    }

    @Test func aWrongUidForTheWildcardIsUid1() throws {
        let server = try start(TokenMistakes(.wrongUid))
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        #expect(try AccessToken2(parsing: try token(client, uid: 0)).rtc?.uid == "")
        #expect(try AccessToken2(parsing: try token(client, uid: 0)).rtc?.uid == "1")
    }

    @Test func cyclingGoesThroughEachKindToNoneAndNonePutsItRight() throws {
        let mistakes = TokenMistakes()
        let server = try start(mistakes)
        defer { server.stop() }
        #expect((0...TokenMistake.allCases.count).map { _ in mistakes.cycle() } == TokenMistake.allCases + [nil])
        let client = try RawClient(port: server.port)
        _ = try token(client)
        mistakes.mistake = .wrongChannel
        #expect(try AccessToken2(parsing: try token(client)).rtc?.channel == "test-other")
        mistakes.mistake = nil
        let putRight = try token(client)
        #expect(try AccessToken2(parsing: putRight).rtc?.channel == "test")
        mistakes.mistake = .stale
        #expect(try token(client) == putRight, "stale hands out the last sound token")
    }
}
