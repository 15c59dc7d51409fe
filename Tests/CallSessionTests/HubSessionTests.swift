import CallScreen
import ChannelEngine
import HubProtocol
import TestSupport
import Testing
@testable import CallSession

/// A session whose channel is on a hub (played by a fake link): tokens from the session's server, checked by the hub.
@MainActor
@Suite struct HubSessionTests {
    static let failed = AgoraConnectionState.failed
    static let tokenExpired = AgoraConnectionChangedReason.reasonTokenExpired
    static let tokenExpiredError = AgoraErrorCode.tokenExpired

    func joined(_ h: SessionHarness) -> HubLinkEvent {
        .notice(.joined(channel: "test", uid: 1_000_000_001, role: .broadcaster, expiresAt: Int64(h.clock.unixTime) + 40, users: []))
    }

    /// A started session whose link has connected and sent its join; the hub has not answered yet.
    func joining() async -> (FakeHubLink, SessionHarness) {
        let link = FakeHubLink()
        let h = SessionHarness { $0.hub = CallSession.Hub(address: "ws://127.0.0.1:8082/hub", link: link) }
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        link.inject(.connected)
        await h.run(for: 0.5)
        return (link, h)
    }

    /// On a hub the role changes when the hub makes the change: until then the session says it asked, and the role
    /// shown (the engine's) stays the one held.
    @Test func aRoleChangeOnAHubShowsWhenTheHubMakesIt() async throws {
        let (link, h) = await joining()
        link.inject(joined(h))
        await h.run(for: 0.5)
        var state = ScreenState(call: CallSettings(channel: "test", uid: 0, role: .broadcaster, tokenServer: "local", renewMethod: .renew, autoRenew: true))
        var shown = 0
        func show() {
            for event in h.events[shown...] { _ = state.update(.event(event, unixTime: 0)) }
            shown = h.events.count
        }
        h.session.perform(.switchRole)
        await h.run(for: 0.5)
        #expect(link.requests.last == .setRole(.audience))
        #expect(h.events.contains { $0.kind == .note("role: the hub is asked for audience; the change shows when it makes it") })
        show()
        #expect(state.call.role == .broadcaster)
        #expect(h.session.engine?.clientRole == .broadcaster)
        link.inject(.notice(.clientRoleChanged(old: .broadcaster, new: .audience)))
        await h.run(for: 0.5)
        show()
        #expect(state.call.role == .audience)
        #expect(h.session.engine?.clientRole == .audience)
        #expect(h.count("didClientRoleChanged") == 1)
        await h.stop()
    }

    @Test func theHubsWarningRenewsThroughItAndAfterTheTokensEndAFreshTokenJoinsAgain() async throws {
        let (link, h) = await joining()
        let first = try #require(link.joins.first)
        #expect(first.user == .uid(0))
        #expect(h.events.contains { $0.kind == .note("the channel is on the hub at ws://127.0.0.1:8082/hub, which checks every token") })
        link.inject(joined(h))
        await h.run(for: 0.5)
        #expect(h.session.engine?.connectionState == .connected)
        #expect(h.session.engine?.connection?.localUid == 1_000_000_001)

        await h.run(for: 10)  // tokens made a second apart differ
        link.inject(.notice(.tokenPrivilegeWillExpire(expiresAt: Int64(h.clock.unixTime) + 30)))
        await h.clock.advance(by: .zero)
        await h.settle(until: { h.count("tokenFetched") == 2 })
        await h.run(for: 0.5)
        guard case .renew(let renewal) = link.requests.last else { Issue.record("no renewal: \(link.requests)"); return }
        #expect(renewal != first.token)

        await h.run(for: 5)
        link.inject(.notice(.connectionStateChanged(state: Self.failed, reason: Self.tokenExpired, error: Self.tokenExpiredError)))
        await h.clock.advance(by: .zero)
        await h.settle(until: { h.count("tokenFetched") == 3 })
        await h.run(for: 0.5)
        #expect(h.count("requestToken") == 1)
        #expect(link.joins.count == 2)
        // The hub never answered the renewal; the join after the end asks the server again all the same.
        #expect(link.joins.last?.token != renewal)
        #expect(link.joins.last?.token != first.token)
        link.inject(joined(h))
        await h.run(for: 0.5)
        #expect(h.session.engine?.connectionState == .connected)
        #expect(h.events.contains { $0.kind == .engine(.connectionStateChanged(.connected, reason: .reasonRejoinSuccess)) })
        await h.stop()
        #expect(link.requests.last == .leave)
    }

    /// A joined session whose hub has warned: the renewal's token has gone to the hub, which has not answered yet.
    func renewing(_ method: RenewMethod) async throws -> (FakeHubLink, SessionHarness, String) {
        let link = FakeHubLink()
        let h = SessionHarness {
            $0.hub = CallSession.Hub(address: "ws://127.0.0.1:8082/hub", link: link)
            $0.renewMethod = method
        }
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        link.inject(.connected)
        await h.run(for: 0.5)
        link.inject(joined(h))
        await h.run(for: 10)  // tokens made a second apart differ
        link.inject(.notice(.tokenPrivilegeWillExpire(expiresAt: Int64(h.clock.unixTime) + 30)))
        await h.clock.advance(by: .zero)
        await h.settle(until: { h.count("tokenFetched") == 2 })
        await h.run(for: 0.5)
        guard case .renew(let renewal) = link.requests.last else { throw CancellationError() }
        return (link, h, renewal)
    }

    static let renewed = AgoraRenewTokenErrorCode.success

    @Test(arguments: [RenewMethod.renew, .update])
    func aRenewalTheHubTakesIsTokenRenewed(method: RenewMethod) async throws {
        let (link, h, renewal) = try await renewing(method)
        #expect(h.count("tokenRenewed") == 0, "nothing is renewed until the hub says so")
        link.inject(.notice(.renewTokenResult(Self.renewed, expiresAt: Int64(h.clock.unixTime) + 40)))
        await h.run(for: 0.5)
        #expect(h.events.filter { $0.name == "tokenRenewed" }.map(\.kind) == [.tokenRenewed(method: method)])
        #expect(h.session.engine?.currentToken == renewal)
    }

    /// The engine's answer, the session's `tokenRenewed` and the notice of the token taken, in the order they came.
    private func renewalOrder(_ h: SessionHarness) -> [String] {
        h.events.compactMap { event in
            switch event.kind {
            case .engine(.renewTokenResult): "renewTokenResult"
            case .tokenRenewed: "tokenRenewed"
            case .engine(.simulatorNotice(.tokenAccepted)): "tokenAccepted"
            default: nil
            }
        }
    }

    @Test func aRenewalReadsInTheSameOrderWithAndWithoutAHub() async throws {
        let (link, h, _) = try await renewing(.renew)
        link.inject(.notice(.renewTokenResult(Self.renewed, expiresAt: Int64(h.clock.unixTime) + 40)))
        await h.run(for: 0.5)
        let plain = SessionHarness()
        plain.session.start()
        await plain.settle(until: { plain.count("tokenFetched") == 1 })
        await plain.run(for: 11)
        #expect(plain.count("tokenRenewed") == 1)
        // Without a hub the join's notice comes first; through the hub the join's token is the hub's to announce.
        #expect(Array(renewalOrder(plain).dropFirst()) == ["renewTokenResult", "tokenRenewed", "tokenAccepted"])
        #expect(Array(renewalOrder(h).suffix(3)) == ["renewTokenResult", "tokenRenewed", "tokenAccepted"])
    }

    @Test func aRecoveryAfterTheTokensEndReadsInTheSameOrderWithAndWithoutAHub() async throws {
        let (link, h) = await joining()
        link.inject(joined(h))
        await h.run(for: 10)
        link.inject(.notice(.connectionStateChanged(state: Self.failed, reason: Self.tokenExpired, error: Self.tokenExpiredError)))
        await h.clock.advance(by: .zero)
        await h.settle(until: { h.count("tokenFetched") == 2 })
        await h.run(for: 0.5)
        link.inject(joined(h))
        await h.run(for: 0.5)
        let plain = SessionHarness()
        plain.session.start()
        await plain.settle(until: { plain.count("tokenFetched") == 1 })
        await plain.run(for: 2)
        plain.session.expireNow()
        await plain.run(for: 2)
        for session in [h, plain] {
            #expect(session.session.engine?.connectionState == .connected)
            #expect(renewalOrder(session).filter { $0 != "tokenAccepted" } == ["renewTokenResult", "tokenRenewed"])
        }
    }

    @Test(arguments: [RenewMethod.renew, .update])
    func aRenewalTheHubRefusesIsNotRenewed(method: RenewMethod) async throws {
        let (link, h, renewal) = try await renewing(method)
        link.inject(.notice(.renewTokenResult(.invalidToken, expiresAt: nil)))
        await h.run(for: 0.5)
        #expect(h.count("tokenRenewed") == 0)
        #expect(h.session.engine?.currentToken != renewal)
    }

    @Test func pushedOutByTheSameUidElsewhereTheCallIsStuckAndSaysWhy() async throws {
        let (link, h) = await joining()
        link.inject(joined(h))
        await h.run(for: 0.5)
        link.inject(.notice(.connectionStateChanged(state: Self.failed, reason: .sameUidLogin, error: nil)))
        await h.run(for: 0.5)
        let stuck = try #require(h.events.lazy.compactMap { if case .stuck(let reason) = $0.kind { reason } else { nil } }.first)
        #expect(stuck.contains("same uid joined this channel elsewhere"), "\(stuck)")
        #expect(h.count("tokenFetchStarted") == 1, "no new token mends it")
    }
}
