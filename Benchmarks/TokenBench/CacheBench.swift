import Foundation
import TokenClient

/// A fetch that takes a millisecond and always answers the same token.
struct BenchProvider: TokenProvider {
    let calls = Counter()

    func fetchToken(for request: TokenRequest) async throws -> FetchedToken {
        await calls.increment()
        try await Task.sleep(for: .milliseconds(1))
        return FetchedToken(token: expectedToken, expiresAt: Int64(Date().timeIntervalSince1970) + 3600)
    }
}

actor Counter {
    private(set) var value = 0
    func increment() { value += 1 }
}

/// The reference: the token store of Moss's guide (cache until 60 s before expiry, concurrent callers share
/// the refresh), written here to that description, without backoff, deadline or soft window.
actor GuideTokenStore {
    private var token: String?
    private var expiresAt = Date.distantPast
    private var refresh: Task<(token: String, expiresIn: TimeInterval), any Error>?

    func token(orFetch fetch: @escaping @Sendable () async throws -> (token: String, expiresIn: TimeInterval)) async throws -> String {
        if let token, expiresAt > Date() { return token }
        if let refresh { return try await refresh.value.token }
        let task = Task { try await fetch() }
        refresh = task
        defer { refresh = nil }
        let fetched = try await task.value
        token = fetched.token
        expiresAt = Date().addingTimeInterval(max(0, fetched.expiresIn - 60))
        return fetched.token
    }
}

let benchRequest = TokenRequest(channel: channel, user: user)

func makeCache() -> (TokenCache, BenchProvider) {
    let provider = BenchProvider()
    return (TokenCache(provider: provider, request: benchRequest, unixTime: { Date().timeIntervalSince1970 }), provider)
}

/// Median ns per call of `body`, called `calls` times a round.
func measureAsync(calls: Int = 20_000, _ body: () async throws -> Void) async rethrows -> Double {
    for _ in 0..<1000 { try await body() }
    var perCall: [Double] = []
    for _ in 0..<rounds {
        let start = ContinuousClock.now
        for _ in 0..<calls { try await body() }
        perCall.append(nanoseconds(ContinuousClock.now - start) / Double(calls))
    }
    perCall.sort()
    return perCall[perCall.count / 2]
}

/// Median wall time in ms for `callers` concurrent calls on a cold cache made by `make`.
func coldStart(callers: Int, _ make: () -> @Sendable () async throws -> Void) async throws -> Double {
    var times: [Double] = []
    for _ in 0..<7 {
        let call = make()
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<callers { group.addTask { try await call() } }
            try await group.waitForAll()
        }
        times.append(nanoseconds(ContinuousClock.now - start) / 1e6)
    }
    times.sort()
    return times[times.count / 2]
}

/// The token cache's hot path, and 10 000 callers on a cold cache, each beside the guide's store.
func cacheBenchmarks() async -> [Outcome] {
    do {
        let (warm, _) = makeCache()
        _ = try await warm.token()
        let ours = try await measureAsync { _ = try await warm.token() }
        let store = GuideTokenStore()
        let fetch: @Sendable () async throws -> (token: String, expiresIn: TimeInterval) = { (expectedToken, 3600) }
        _ = try await store.token(orFetch: fetch)
        let guide = try await measureAsync { _ = try await store.token(orFetch: fetch) }

        let oursCold = try await coldStart(callers: 10_000) {
            let (cache, _) = makeCache()
            return { _ = try await cache.token() }
        }
        let guideCold = try await coldStart(callers: 10_000) {
            let store = GuideTokenStore()
            return {
                _ = try await store.token { try await Task.sleep(for: .milliseconds(1)); return (expectedToken, 3600) }
            }
        }
        let (probe, provider) = makeCache()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<10_000 { group.addTask { _ = try await probe.token() } }
            try await group.waitForAll()
        }
        let calls = await provider.calls.value
        guard calls == 1 else { fail("token_cache_cold_10k: 10 000 callers made \(calls) fetches, not 1") }
        return [
            Outcome(name: "token_cache_hit", value: ours, reference: guide, target: 0.5),
            Outcome(name: "token_cache_cold_10k", unit: "ms", value: oursCold, reference: guideCold, target: 0.5),
        ]
    } catch {
        fail("the token cache benchmark threw \(error)")
    }
}
