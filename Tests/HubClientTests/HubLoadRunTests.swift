import HubClient
import HubLoad
import Testing
import TokenClient

@Suite struct HubLoadRunTests {
    /// A token server that never answers; a fetch ends only when cancelled.
    struct SilentProvider: TokenProvider {
        func fetchToken(for request: TokenRequest) async throws -> FetchedToken {
            try await Task.sleep(for: .seconds(3_600))
            throw CancellationError()
        }
    }

    @Test func aRunEndsAtItsDurationThoughTokenFetchesAreStillUnderWay() async throws {
        let plan = LoadPlan(provider: SilentProvider(), clients: 2, channels: 1, duration: .milliseconds(200),
                            framesPerSecond: 0, requestTimeout: .seconds(2))
        let figures = await HubLoadRun.run(plan, hub: try HubAddress(parsing: "ws://127.0.0.1:1/hub"), loop: try HubClientLoop())
        // Given up at the end, not waited on to their deadline (which would add "tokenFetch: no answer within 2 s").
        #expect(figures.errors == ["never joined": 2])
    }
}
