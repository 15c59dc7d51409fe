import Foundation
import Synchronization
import TestSupport
import Testing
@testable import TokenClient

@Suite struct TokenCacheTests {
    @Test func aColdCacheFetchesOnceForTwoCallsASecondApart() async throws {
        let (cache, provider, clock) = makeCache([.token(lifetime: 3600)])
        let first = try await cache.token()
        await clock.advance(by: .seconds(1))
        let second = try await cache.token()
        #expect(first == second)
        #expect(provider.callCount == 1)
    }

    @Test func refreshesAtTheSoftMarginNotBefore() async throws {
        let (cache, provider, clock) = makeCache([.token(lifetime: 3600)])
        let first = try await cache.token()
        await clock.advance(by: .seconds(3539))
        #expect(try await cache.token() == first)
        #expect(await cache.fetchCount == 1)
        await clock.advance(by: .seconds(1))
        #expect(try await cache.token() == first, "the soft window still serves the current token")
        #expect(await cache.fetchCount == 2, "and starts a refresh")
        await waitUntil { provider.callCount == 2 }
        await waitUntil { await cache.cached != first }
        #expect(try await cache.token() != first)
    }

    @Test func aShortTokenGetsAHalvedMarginAndNoFetchOnEveryCall() async throws {
        let (cache, _, clock) = makeCache([.token(lifetime: 40)])
        _ = try await cache.token()
        for _ in 0..<19 {
            await clock.advance(by: .seconds(1))
            _ = try await cache.token()
        }
        #expect(await cache.fetchCount == 1, "no refresh before 20 s of a 40 s token")
        await clock.advance(by: .seconds(1))
        _ = try await cache.token()
        #expect(await cache.fetchCount == 2)
    }

    @Test func aFreshTokenIsAskedOfTheServerWhateverIsCachedOrTheBackoff() async throws {
        let (cache, provider, clock) = makeCache([.token(lifetime: 3600), .fail(.server(status: 500, message: "boom")),
                                                  .token(lifetime: 3600)])
        let first = try await cache.token()
        await clock.advance(by: .seconds(1))
        await #expect(throws: TokenClientError.self) { try await cache.freshToken() }
        #expect(await cache.retryDelay() == .seconds(1))
        let fresh = try await cache.freshToken()
        #expect(fresh != first)
        #expect(provider.callCount == 3)
        #expect(await cache.fetchCount == 3)
    }

    @Test func aHundredConcurrentCallersShareOneFetch() async throws {
        let (cache, provider, _) = makeCache([.token(lifetime: 3600)])
        let tokens = try await withThrowingTaskGroup(of: FetchedToken.self) { group in
            for _ in 0..<100 { group.addTask { try await cache.token() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1.token) }
        }
        #expect(tokens.count == 1)
        #expect(provider.callCount == 1)
    }

    @Test func aHundredConcurrentCallersShareOneFailure() async throws {
        let (cache, provider, _) = makeCache([.fail(.server(status: 500, message: "boom"))])
        let errors = await withTaskGroup(of: String.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    do { _ = try await cache.token(); return "no error" } catch { return "\(error)" }
                }
            }
            return await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(errors == ["the token server answered HTTP 500: boom"])
        #expect(provider.callCount == 1)
    }

    @Test func aCancelledWaiterLeavesAloneAndTheOthersStillGetTheToken() async throws {
        let (cache, provider, clock) = makeCache([.hang])
        let cancelled = Task { try await cache.token() }
        await waitUntil { provider.callCount == 1 }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(await cache.fetchCount == 1)
        await clock.waitForSleepers()
        await clock.advance(by: .seconds(10))
        await #expect(throws: TokenClientError.timeout(.seconds(10))) { try await cache.token() }
    }

    @Test func aCancelledWaiterDoesNotCancelTheSharedFetch() async throws {
        let (cache, provider, _) = makeCache([.token(lifetime: 3600)])
        let waiter = Task { try await cache.token() }
        waiter.cancel()
        _ = try? await waiter.value
        let token = try await cache.token()
        #expect(provider.callCount == 1)
        #expect(await cache.cached == token)
    }

    @Test func aFailedRefreshInTheSoftWindowServesTheOldTokenAndBacksOff() async throws {
        let (cache, provider, clock) = makeCache([.token(lifetime: 3600), .fail(.server(status: 500, message: nil)), .token(lifetime: 3600)])
        let first = try await cache.token()
        await clock.advance(by: .seconds(3540))
        #expect(try await cache.token() == first)
        await waitUntil { await cache.retryDelay() != nil }
        #expect(await cache.retryDelay() == .seconds(1))
        #expect(try await cache.token() == first, "no error while the old token is valid")
        #expect(provider.callCount == 2, "no new attempt during the backoff")
        await clock.advance(by: .seconds(1))
        #expect(try await cache.token() == first)
        #expect(await cache.fetchCount == 3, "the next attempt starts once the backoff is over")
    }

    @Test func afterTheRealExpiryTheErrorSurfacesAndAnExpiredTokenIsNeverReturned() async throws {
        let (cache, _, clock) = makeCache([.token(lifetime: 100), .fail(.transport("connection refused"))])
        _ = try await cache.token()
        await clock.advance(by: .seconds(100))
        await #expect(throws: TokenClientError.transport("connection refused")) { try await cache.token() }
        #expect(await cache.cached != nil, "kept, but never handed out")
    }

    @Test func withNoTokenARecentFailureFailsFastUntilTheBackoffEnds() async throws {
        let (cache, provider, clock) = makeCache([.fail(.transport("connection refused"))])
        await #expect(throws: TokenClientError.self) { try await cache.token() }
        await #expect(throws: TokenClientError.self) { try await cache.token() }
        #expect(provider.callCount == 1)
        await clock.advance(by: .seconds(1))
        await #expect(throws: TokenClientError.self) { try await cache.token() }
        #expect(provider.callCount == 2)
        #expect(await cache.retryDelay() == .seconds(2), "backoff doubles")
    }

    @Test func backoffIsJitteredAndCapped() async throws {
        let clock = ManualClock()
        let provider = StubProvider([.fail(.transport("refused"))], clock: clock)
        var policy = TokenCache.Policy()
        policy.jitter = { 0.5 }
        let cache = TokenCache(provider: provider, request: request, policy: policy, clock: clock, unixTime: { clock.unixTime })
        var delays: [Duration] = []
        for _ in 0..<8 {
            await #expect(throws: TokenClientError.transport("refused")) { try await cache.token() }
            let delay = try #require(await cache.retryDelay())
            delays.append(delay)
            await clock.advance(by: delay)
        }
        #expect(delays == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(15), .seconds(15), .seconds(15)])
    }

    @Test func retryAfterIsHonoured() async throws {
        let (cache, _, _) = makeCache([.fail(.rateLimited(status: 429, retryAfter: .seconds(20)))])
        await #expect(throws: TokenClientError.rateLimited(status: 429, retryAfter: .seconds(20))) { try await cache.token() }
        #expect(await cache.retryDelay() == .seconds(20))
    }

    @Test func theOverallDeadlineCancelsAStalledRequest() async throws {
        let (cache, _, clock) = makeCache([.hang])
        let waiting = Task { try await cache.token() }
        await clock.waitForSleepers()
        await clock.advance(by: .seconds(9))
        await clock.advance(by: .seconds(1))
        await #expect(throws: TokenClientError.timeout(.seconds(10))) { try await waiting.value }
    }

    @Test func theDeadlineDoesNotWaitForAProviderThatIgnoresCancellation() async throws {
        let (cache, _, clock) = makeCache([.deaf(seconds: 30)])
        let answer = Answer()
        let waiting = Task {
            do { _ = try await cache.token(); answer.set("a token") } catch { answer.set("\(error)") }
        }
        await clock.waitForSleepers(2)  // the deadline, and the provider that answers at 30 s
        await clock.advance(by: .seconds(10))
        // The clock stays at the deadline: an answer that waited for the provider would not come at all.
        #expect(await eventually { answer.text != nil }, "no answer at the deadline")
        #expect(answer.text == "\(TokenClientError.timeout(.seconds(10)))")
        await waiting.value
        await clock.advance(by: .seconds(20))  // lets the provider answer, to nobody, rather than leave it asleep
    }

    @Test func invalidateClearsOnlyTheRejectedToken() async throws {
        let (cache, provider, _) = makeCache([.token(lifetime: 3600)])
        let token = try await cache.token()
        await cache.invalidate(rejected: "someone else's token")
        #expect(await cache.cached == token)
        await cache.invalidate(rejected: token.token)
        #expect(await cache.cached == nil)
        _ = try await cache.token()
        #expect(provider.callCount == 2)
    }

    @Test func aFreshTokenCanBeDemandedForARenewal() async throws {
        let (cache, provider, clock) = makeCache([.token(lifetime: 40)])
        let first = try await cache.token()
        await clock.advance(by: .seconds(10))
        let fresh = try await cache.token(validFor: .seconds(31))
        #expect(fresh != first)
        #expect(provider.callCount == 2)
    }

    @Test func descriptionsNeverShowTheToken() async throws {
        let (cache, _, _) = makeCache([.token(lifetime: 60)])
        let fetched = try await cache.token()
        #expect(!fetched.description.contains(fetched.token))
        #expect(!"\(fetched)".contains(String(fetched.token.suffix(10))))
    }
}

/// What a waiting task was answered, once it was.
private final class Answer: Sendable {
    private let state = Mutex<String?>(nil)
    var text: String? { state.withLock { $0 } }
    func set(_ text: String) { state.withLock { $0 = text } }
}

/// Polls (yielding) until `condition` holds, for at most a few seconds.
func waitUntil(_ condition: @Sendable () async -> Bool) async {
    for _ in 0..<50_000 {
        if await condition() { return }
        await Task.yield()
    }
    Issue.record("the condition never held")
}

/// `FetchedToken` keeps its redirect and flaw behind one shared reference: setting either keeps the other, a copy
/// changed does not change the original, and both count in equality.
@Test func aFetchedTokensRedirectAndFlawAreValues() {
    var token = FetchedToken(token: "007abc", expiresAt: 100)
    let plain = token
    token.redirectedTo = "/v2/token"
    token.flaw = .expired(secondsAgo: 5)
    #expect(token.redirectedTo == "/v2/token" && token.flaw == .expired(secondsAgo: 5))
    #expect(plain.redirectedTo == nil && plain.flaw == nil)
    var other = token
    other.flaw = nil
    #expect(token.flaw == .expired(secondsAgo: 5) && other.redirectedTo == "/v2/token")
    #expect(token != other && token != plain && other != plain)
    other.flaw = .expired(secondsAgo: 5)
    #expect(token == other)
}
