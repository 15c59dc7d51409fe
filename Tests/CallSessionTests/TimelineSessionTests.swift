import CallScreen
import CallSession
import TestSupport
import Testing

/// The token timeline of a real session on the manual clock, drawn from its events alone, as a replay draws it.
@MainActor
@Suite struct TimelineSessionTests {
    @Test func renewalsAnExpiryAndARecoveryDrawEachTokensLife() async throws {
        let base = 1_800_000_000.0
        let h = SessionHarness(clock: ManualClock(unixTime: base))
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 25, step: 1)
        h.session.setRenewMethod(.update)
        await h.run(for: 10, step: 1)
        h.session.toggleTokenServer()
        await h.run(for: 40, step: 1)
        #expect(h.count("requestToken") == 1, "the token ran out with the server stopped")
        h.session.toggleTokenServer()
        // The retry after the backoff recovers the call.
        for _ in 0..<60 where h.session.engine?.connectionState != .connected { await h.run(for: 1, step: 1) }
        #expect(h.session.engine?.connectionState == .connected)
        await h.run(for: 2, step: 1)
        h.session.rejoin()
        await h.run(for: 5, step: 1)

        var state = ScreenState(for: h.session)
        for event in h.events {
            _ = state.update(.event(event, unixTime: base + Double(event.time / .milliseconds(1)) / 1000))
        }
        let lives = state.timeline.lives
        #expect(lives.prefix(2).map(\.end?.how) == [.renewed(.renew), .renewed(.renew)], "renewed at 10 s and 20 s")
        #expect(lives.map(\.end?.how).contains(.renewed(.update)))
        let expired = try #require(lives.first { $0.end?.how == .expired })
        #expect(expired.warnedAt != nil)
        #expect(expired.end?.at == expired.expiresAt, "it ran out at its expiry: \(expired)")
        let recovered = try #require(lives.drop { $0 != expired }.dropFirst().first)
        #expect(recovered.issuedAt > (try #require(expired.end)).at, "a gap while the server was down")
        #expect(recovered.end?.how == .renewed(.rejoin), "recovered, then rejoined")
        #expect(lives.last?.end == nil)
        let marks = state.timeline.marks
        #expect(marks.filter { $0.kind == .fetchFailed }.count == h.count("tokenFetchFailed"))
        #expect(marks.contains { $0.kind == .requestToken })
        #expect(marks.contains { $0.kind == .connection(.failed) })

        _ = state.update(.key(.character("t")))
        _ = state.update(.tick(ScreenTime(unixTime: base + Double(h.session.now / .milliseconds(1)) / 1000, sessionTime: h.session.now)))
        let text = ScreenRenderer.render(state, width: 120, height: 40, options: RenderOptions(colors: 0, unicode: false),
                                         video: { _ in nil }, at: h.session.now).text
        for label in ["renewed renew", "renewed update", "expired", "renewed rejoin", "live 00:"] {
            #expect(text.contains(label), "the timeline says \(label):\n\(text)")
        }
        await h.stop()
    }
}
