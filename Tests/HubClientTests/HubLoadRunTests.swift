import HubClient
import HubLoad
import Synchronization
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
        let figures = await HubLoadRun.run(plan, hub: try HubAddress(parsing: "ws://127.0.0.1:1/hub"), loops: [try HubClientLoop()])
        // Given up at the end, not waited on to their deadline (which would add "tokenFetch: no answer within 2 s").
        #expect(figures.errors == ["never joined": 2])
    }

    /// Notes when each client asked for its token, then never answers.
    final class ClockedProvider: TokenProvider {
        let asked = Mutex<[UInt32: ContinuousClock.Instant]>([:])
        func fetchToken(for request: TokenRequest) async throws -> FetchedToken {
            if case .uid(let uid) = request.user { asked.withLock { $0[uid] = .now } }
            try await Task.sleep(for: .seconds(3_600))
            throw CancellationError()
        }
    }

    @Test func withARampUpTheClientsArriveSpreadOverIt() async throws {
        let provider = ClockedProvider()
        let plan = LoadPlan(provider: provider, clients: 2, channels: 1, duration: .milliseconds(700), framesPerSecond: 0,
                            rampUp: .milliseconds(400))
        let began = ContinuousClock.now
        _ = await HubLoadRun.run(plan, hub: try HubAddress(parsing: "ws://127.0.0.1:1/hub"), loops: [try HubClientLoop()])
        let asked = provider.asked.withLock { $0 }
        // Client 1 of 2 starts half the ramp-up into the run (which began after `began`); all at once, it would not wait.
        #expect(asked[1] != nil)
        #expect(try #require(asked[2]) - began >= .milliseconds(200))
    }
}
