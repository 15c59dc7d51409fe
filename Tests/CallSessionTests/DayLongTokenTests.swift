import Testing

/// The measure of `--speed`: a day-long token warns 30 s before its end, in the call's time.
@MainActor
struct DayLongTokenTests {
    @Test func aDayLongTokenWarnsAt86370SecondsOfCallTime() async throws {
        let h = SessionHarness(tokenLifetime: 86_400)
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 86_369, step: 600)
        #expect(h.count("tokenPrivilegeWillExpire") == 0)
        await h.run(for: 2, step: 0.25)
        let warned = try #require(h.first("tokenPrivilegeWillExpire"))
        #expect(warned.time >= .seconds(86_370) && warned.time < .seconds(86_371), "warned at \(warned.time)")
        await h.settle(until: { h.count("tokenRenewed") == 1 })
        #expect(h.count("tokenRenewed") == 1)
        #expect(h.session.engine?.connectionState == .connected)
    }
}
