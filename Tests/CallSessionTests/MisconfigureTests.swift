import AccessToken
import ChannelEngine
import Foundation
import TestSupport
import Testing
import TokenClient
import TokenServer
@testable import CallSession

/// The embedded server as `join` wires it, on the manual clock: a token server on 127.0.0.1 whose mistakes reach the
/// engine, the client saying what is wrong with each.
@MainActor
private final class MisconfiguredServer {
    let mistakes: TokenMistakes
    let server: TokenServer
    let source: TokenSource

    init(_ mistake: TokenMistake?, clock: ManualClock) throws {
        mistakes = TokenMistakes(mistake)
        var config = TokenServerConfig(port: 0, appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                       tokenLifetime: 40, unixTime: { UInt32(clock.unixTime) })
        config.mistakes = mistakes
        server = try TokenServer(config)
        let mistakes = mistakes
        source = TokenSource(provider: HTTPTokenProvider(url: server.url, handsOverMistakes: true, unixTime: { clock.unixTime }),
                             url: server.url,
                             ownServer: OwnTokenServer(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                                       tokenLifetime: 40,
                                                       mistakes: MistakeSwitch(current: { mistakes.mistake }, set: { mistakes.mistake = $0 }),
                                                       toggle: { true }))
    }
}

@MainActor
@Suite(.serialized) struct MisconfigureTests {
    private func harness(_ server: MisconfiguredServer, clock: ManualClock) -> SessionHarness {
        SessionHarness(clock: clock, source: server.source, loopback: true)
    }

    private func renewCodes(_ h: SessionHarness) -> [AgoraRenewTokenErrorCode] {
        h.events.compactMap { if case .engine(.renewTokenResult(_, let code)) = $0.kind { code } else { nil } }
    }

    private func notes(_ h: SessionHarness) -> [String] { h.events.compactMap(\.noteText) }

    /// Presses `x` until the server's tokens are right again.
    private func putRight(_ h: SessionHarness, _ server: MisconfiguredServer) {
        while server.mistakes.mistake != nil { h.session.cycleMistake() }
    }

    @Test(arguments: [(TokenMistake.wrongUid, AgoraRenewTokenErrorCode.invalidToken), (.wrongChannel, .invalidChannelName),
                      (.wrongApp, .inconsistentAppId), (.expired, .tokenExpired)])
    func eachMistakeGetsTheSDKsAnswerAndTheCallRecoversWhenPutRight(mistake: TokenMistake, answer: AgoraRenewTokenErrorCode) async throws {
        let clock = SessionHarness.makeClock()
        let server = try MisconfiguredServer(mistake, clock: clock)
        defer { server.server.stop() }
        let h = harness(server, clock: clock)
        h.session.start()
        #expect(h.events.contains { $0.kind == .mistakeChanged(mistake) }, "the session says what the server gets wrong")
        await h.run(for: 12)
        #expect(h.first("didJoinChannel") != nil, "the join gets a sound token")
        #expect(h.count("tokenPrivilegeWillExpire") == 1)
        #expect(renewCodes(h) == [answer], "the renewal's token is refused")
        #expect(notes(h).contains { $0.hasSuffix("handed to the engine anyway, as an app that does not check its tokens would") })
        #expect(h.session.engine?.connectionState == .connected, "a refused renewal keeps the token in use")

        await h.run(for: 30)
        #expect(h.count("requestToken") == 1)
        #expect(h.events.contains { $0.kind == .engine(.connectionStateChanged(.failed, reason: .reasonTokenExpired)) })
        #expect(renewCodes(h) == [answer, answer], "the recovery's token is refused the same way")
        #expect(h.session.engine?.connectionState == .failed)

        putRight(h, server)
        #expect(h.events.contains { $0.kind == .mistakeChanged(nil) })
        await h.run(for: 3)
        #expect(renewCodes(h).last == .success)
        #expect(h.session.engine?.connectionState == .connected, "put right, the call comes back")
        #expect(h.events.contains { $0.kind == .tokenRenewed(method: .renew) })
        await h.stop()
    }

    @Test func aStaleTokenRenewsWithSuccessButTheCallStillExpiresOnTime() async throws {
        let clock = SessionHarness.makeClock()
        let server = try MisconfiguredServer(.stale, clock: clock)
        defer { server.server.stop() }
        let h = harness(server, clock: clock)
        h.session.start()
        await h.run(for: 12)
        #expect(renewCodes(h) == [.success], "the SDK takes the token it already has")
        #expect(notes(h).contains("the token server sent the token already in use; renewing with it does not move its expiry"))
        await h.run(for: 27)
        #expect(h.count("tokenPrivilegeWillExpire") == 1, "the same token does not warn again")
        #expect(h.count("tokenFetchStarted") == 2, "nothing fetches again before it runs out")
        #expect(h.session.engine?.connectionState == .connected)
        await h.run(for: 3)
        let expired = try #require(h.first("requestToken"))
        #expect(expired.time >= .seconds(39) && expired.time <= .seconds(41), "it expires when the first token does")
        #expect(renewCodes(h) == [.success, .tokenExpired], "the same token once more, now expired")
        #expect(h.session.engine?.connectionState == .failed)
        putRight(h, server)
        await h.run(for: 3)
        #expect(renewCodes(h).last == .success)
        #expect(h.session.engine?.connectionState == .connected)
        await h.stop()
    }

    @Test func aMistakeMadeDuringTheCallAndPutRightBeforeExpiryNeverDropsIt() async throws {
        let clock = SessionHarness.makeClock()
        let server = try MisconfiguredServer(nil, clock: clock)
        defer { server.server.stop() }
        let h = harness(server, clock: clock)
        h.session.start()
        await h.run(for: 5)
        h.session.cycleMistake()
        #expect(h.events.last?.kind == .mistakeChanged(.wrongUid))
        await h.run(for: 7)
        #expect(renewCodes(h) == [.invalidToken])
        putRight(h, server)
        await h.run(for: 40)
        #expect(renewCodes(h).dropFirst().allSatisfy { $0 == .success } && renewCodes(h).count >= 3)
        #expect(h.count("requestToken") == 0, "renewed at once when put right, before the token ran out")
        #expect(h.session.engine?.connectionState == .connected)
        await h.stop()
    }

    @Test(arguments: [(RenewMethod.update, TokenMistake.wrongUid, AgoraErrorCode.invalidToken), (.update, .expired, .tokenExpired),
                      (.rejoin, .wrongUid, .invalidToken), (.rejoin, .expired, .tokenExpired)])
    func theOtherRenewMethodsReportTheMistakeAsAnErrorAndComeBackWhenPutRight(method: RenewMethod, mistake: TokenMistake,
                                                                             error: AgoraErrorCode) async throws {
        let clock = SessionHarness.makeClock()
        let server = try MisconfiguredServer(mistake, clock: clock)
        defer { server.server.stop() }
        let h = SessionHarness(clock: clock, source: server.source, loopback: true) { $0.renewMethod = method }
        h.session.start()
        await h.run(for: 12)
        #expect(renewCodes(h).isEmpty)
        #expect(h.events.contains { $0.kind == .engine(.didOccurError(error)) }, "\(h.names())")
        switch (method, mistake) {
        case (.update, _):
            #expect(h.session.engine?.connectionState == .connected, "a refused update keeps the token in use")
        case (_, .expired):
            #expect(h.events.contains { $0.kind == .engine(.connectionStateChanged(.failed, reason: .reasonTokenExpired)) })
        default:
            #expect(h.events.contains { $0.kind == .engine(.connectionStateChanged(.disconnected, reason: .reasonInvalidToken)) })
            #expect(h.count("stuck") == 1)
            let stuck = h.events.first { $0.name == "stuck" }?.textLine ?? ""
            #expect(stuck.contains("makes \(mistake.rawValue) tokens on purpose: put it right"), "\(stuck)")
        }
        putRight(h, server)
        await h.settle()
        if h.session.engine?.connectionState == .disconnected {
            #expect(h.events.last?.kind == .note("press j to join again"))
            h.session.join()
        }
        await h.run(for: 3)
        #expect(h.session.engine?.connectionState == .connected, "\(h.events.suffix(8).map(\.textLine))")
        await h.stop()
    }

    @Test func aServerThatIsNotTheAppsOwnMakesNoMistakesOnPurpose() async throws {
        let clock = SessionHarness.makeClock()
        let local = LocalTokenServer(clock: clock)
        let h = SessionHarness(clock: clock, source: TokenSource(provider: local, url: URL(string: "http://127.0.0.1:8082")!))
        h.session.start()
        h.session.cycleMistake()
        #expect(h.events.last?.kind == .note("misconfigure: only the embedded token server makes mistakes on purpose"))
    }
}
