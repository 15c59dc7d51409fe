import AccessToken
import ChannelEngine
import TestSupport
import Testing
import TokenClient
@testable import CallSession

/// A token for channel "test" (uid 0: any uid) pasted now on `clock`, lasting `lifetime` s.
private func paste(_ clock: ManualClock, lifetime: UInt32, channel: String = "test", salt: UInt32 = 1) throws -> PastedToken {
    try PastedToken(serverToken(channel: channel, lifetime: lifetime, issuedAt: UInt32(clock.unixTime), salt: salt), unixTime: clock.unixTime)
}

/// A by-hand session on a fresh clock, started with a first token lasting `lifetime` s and run for `seconds`.
@MainActor
private func started(lifetime: UInt32, channel: String = "test", seconds: Double = 1,
                     _ adjust: (inout CallSession.Configuration) -> Void = { _ in }) async throws -> SessionHarness {
    let clock = SessionHarness.makeClock()
    let h = SessionHarness(clock: clock, tokens: .byHand(latest: try paste(clock, lifetime: lifetime, channel: channel)), adjust)
    h.session.start()
    await h.run(for: seconds)
    return h
}

@MainActor
@Suite(.serialized) struct PastedTokenSessionTests {
    @Test func aByHandCallJoinsWithThePastedTokenAndAsksForTheNextBeforeItRunsOut() async throws {
        let h = try await started(lifetime: 60)
        #expect(h.session.engine?.connectionState == .connected)
        #expect(h.count("tokenPasted") == 1)
        #expect(h.count("tokenFetchStarted") == 0, "no server: nothing is fetched")
        #expect(h.events.contains { $0.noteText == "App ID \(TestCredentials.appID) taken from the first token" })
        await h.run(for: 30)
        #expect(h.events.contains { $0.kind == .tokenNeeded(secondsLeft: 30) })
        h.session.paste(try paste(h.clock, lifetime: 60, salt: 2))
        await h.run(for: 50)
        #expect(h.events.contains { $0.kind == .tokenRenewed(method: .renew) })
        #expect(h.count("requestToken") == 0)
        #expect(h.session.engine?.connectionState == .connected)
    }

    @Test(arguments: RenewMethod.allCases)
    func aPasteIsHandedOverWithTheCurrentRenewMethod(method: RenewMethod) async throws {
        let h = try await started(lifetime: 600) { $0.renewMethod = method }
        let next = try paste(h.clock, lifetime: 900, salt: 2)
        h.session.paste(next)
        await h.run(for: 2)
        #expect(h.events.contains { $0.kind == .tokenRenewed(method: method) })
        #expect(h.session.engine?.currentToken == next.token)
        #expect(h.session.engine?.connectionState == .connected)
    }

    @Test func whenThePastedTokenRunsOutTheSessionIsStuckAndEndsFailed() async throws {
        let h = try await started(lifetime: 3)
        #expect(h.events.contains { $0.kind == .tokenNeeded(secondsLeft: 3) }, "a token shorter than the warning asks at once")
        await h.run(for: 3)
        let needed = try #require(h.events.lastIndex { $0.kind == .tokenNeeded(secondsLeft: 0) })
        #expect(h.events[(needed + 1)...].contains { $0.name == "stuck" })
        await h.stop()
        #expect(h.events.last?.kind == .sessionEnded(failed: true))
    }

    @Test func aPasteAfterTheTokenRanOutBringsTheCallBack() async throws {
        let h = try await started(lifetime: 3, seconds: 5)
        #expect(h.session.engine?.connectionState == .failed)
        h.session.paste(try paste(h.clock, lifetime: 600, salt: 2))
        await h.run(for: 2)
        #expect(h.session.engine?.connectionState == .connected)
    }

    @Test func aJoinAfterLeavingTakesTheLastPastedTokenWhileItLasts() async throws {
        let h = try await started(lifetime: 600)
        h.session.leave()
        await h.run(for: 1)
        h.session.join()
        await h.run(for: 1)
        #expect(h.session.engine?.connectionState == .connected)
        #expect(h.count("tokenPasted") == 2)
        h.session.renewNow()
        #expect(h.events.last?.noteText?.contains("there is no token server") == true)
    }

    @Test func aTokenForAnotherChannelIsHandedToTheSDKWithAWarning() async throws {
        let h = try await started(lifetime: 600, channel: "lobby", seconds: 2)
        let warning = try #require(h.events.first { $0.noteText?.hasPrefix("the pasted token will be refused") == true })
        #expect(warning.noteText?.contains("built for channel \"lobby\", not \"test\"") == true)
        #expect(h.events.contains { $0.kind == .engine(.connectionStateChanged(.disconnected, reason: .reasonInvalidToken)) })
        #expect(h.count("stuck") == 1)
    }

    /// A call joined with uid 0 holds the uid the engine gave it; a token pasted for that uid but another App ID is
    /// refused for the App ID, said once, in or out of the channel; one for the right App ID is taken.
    @Test(arguments: [false, true])
    func aPastedTokenForAnotherAppIDIsExplainedOnceByItsCause(inChannel: Bool) async throws {
        let h = SessionHarness()
        h.session.start()
        await h.run(for: 1)
        let uid = try #require(h.session.engine?.connection?.localUid)
        if !inChannel {
            h.session.leave()
            await h.run(for: 1)
        }
        let otherApp = "0123456789abcdef0123456789abcdef"
        let issued = UInt32(h.clock.unixTime)
        let wrong = try AccessToken2.buildRTC(appID: otherApp, appCertificate: TestCredentials.certificate, channel: "test",
                                              user: .uid(UInt32(uid)), role: .publisher, tokenExpire: 600, privilegeExpire: 600,
                                              issuedAt: issued, salt: 7)
        let before = h.events.count
        h.session.paste(try PastedToken(wrong, unixTime: h.clock.unixTime))
        await h.run(for: 1)
        let said = h.events[before...].compactMap { event -> String? in
            if case .stuck(let reason) = event.kind { reason } else { event.noteText }
        }
        #expect(said.filter { $0.contains("App ID \(otherApp)") }.count == 1, "\(said)")
        #expect(!said.contains { $0.contains("uid \(uid)") }, "the uid is the one in use: \(said)")

        if !inChannel {
            let right = h.events.count
            h.session.paste(try PastedToken(try serverToken(user: .uid(UInt32(uid)), lifetime: 600, issuedAt: issued, salt: 8),
                                            unixTime: h.clock.unixTime))
            await h.run(for: 1)
            #expect(h.session.engine?.connectionState == .connected, "a token for the uid in use is taken")
            #expect(h.session.engine?.connection?.localUid == uid)
            #expect(!h.events[right...].contains { $0.noteText?.hasPrefix("the pasted token will be refused") == true })
        }
        await h.stop()
    }

    @Test func withAServerThePastedTokenIsOnlyTheFirst() async throws {
        let clock = SessionHarness.makeClock()
        let server = LocalTokenServer(lifetime: 40, clock: clock)
        let first = try paste(clock, lifetime: 35, salt: 99)
        let h = SessionHarness(clock: clock, tokens: .server(server.source, first: first))
        h.session.start()
        await h.run(for: 1)
        #expect(h.session.engine?.currentToken == first.token)
        #expect(server.fetchCount == 0)
        await h.run(for: 10)
        #expect(h.events.contains { $0.kind == .tokenFetchStarted(reason: "willExpire") })
        #expect(h.events.contains { $0.kind == .tokenRenewed(method: .renew) })
        #expect(h.session.engine?.currentToken != first.token)
        #expect(h.count("tokenNeeded") == 0)
        // `p` works with a server too: the pasted token is handed over once, and renewals still come from the server.
        let pasted = try paste(clock, lifetime: 35, salt: 98)
        h.session.paste(pasted)
        await h.run(for: 1)
        #expect(h.session.engine?.currentToken == pasted.token)
        let fetches = server.fetchCount
        await h.run(for: 10)
        #expect(server.fetchCount > fetches)
        #expect(h.session.engine?.currentToken != pasted.token)
    }
}
