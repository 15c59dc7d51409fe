import Timers

/// Caches one token for one request: serves it until a soft margin before its end, refreshes early in the
/// background, never hands out an expired one, shares one fetch among all who wait, and backs off after a
/// failure. Every time it reads comes from the injected clocks: the cache's for a token's life, the network's for a
/// fetch's deadline and backoff.
public final actor TokenCache {
    public struct Policy: Sendable {
        /// Refresh this long before the end (halved lifetime for short tokens).
        public var refreshMargin: Duration = .seconds(60)
        /// A fetch that takes longer is cancelled and fails with `timeout`.
        public var deadline: Duration = .seconds(10)
        /// The network's clock, when not the cache's: a fetch's deadline and the backoff after a failure run on it, at
        /// real speed while the cache's clock runs fast or pauses (`join --speed`).
        public var networkClock: (any Clock<Duration>)?
        public var backoffBase: Duration = .seconds(1)
        public var backoffCap: Duration = .seconds(30)
        /// A factor in 0.5...1 applied to each backoff.
        public var jitter: @Sendable () -> Double = { Double.random(in: 0.5...1) }
        /// Where the cache and its fetches run when not on Swift's shared threads: the caller's thread (`MainQueueExecutor`
        /// for a call on the main actor) spares a thread hop each way.
        public var executor: (any TaskExecutor)?

        public init() {}
    }

    private struct Entry {
        let fetched: FetchedToken
        let expiry: Duration
        let refreshAt: Duration
    }

    /// The request under way: its number, when it began on the cache's clock and the wall's, its deadline on the
    /// network's clock, and the task that waits for the provider.
    private struct Fetch {
        let number: Int
        let startedAt: Duration
        let startedUnix: Double
        let until: Duration
        let work: Task<Void, Never>
    }

    private let provider: any TokenProvider
    public nonisolated let request: TokenRequest
    private let policy: Policy
    private let clock: ElapsedClock
    private let network: ElapsedClock
    private let unixTime: @Sendable () -> Double
    private var current: Entry?
    private var inflight: Fetch?
    /// Ends a fetch that outlives its deadline: one task for the cache, asleep until the deadline of the fetch under way.
    private var watchdog: Task<Void, Never>?
    private var waiters: [UInt64: UnsafeContinuation<FetchedToken, any Error>] = [:]
    private var nextWaiter: UInt64 = 0
    /// The latest failure, when the next fetch may start, and the wait it was reported with.
    private var failure: (error: TokenClientError, retryAt: Duration, wait: Duration)?
    private var failures = 0

    /// Transport calls made so far.
    public private(set) var fetchCount = 0

    public init(provider: any TokenProvider, request: TokenRequest, policy: Policy = Policy(),
                clock: any Clock<Duration> = ContinuousClock(), unixTime: @escaping @Sendable () -> Double) {
        self.provider = provider
        self.request = request
        self.policy = policy
        self.clock = ElapsedClock(clock)
        network = policy.networkClock.map { ElapsedClock($0) } ?? self.clock
        self.unixTime = unixTime
    }

    /// A token that stays valid for more than `minimum` from now: the cached one, or a fresh one.
    ///
    /// In the soft window the cached token is returned while a refresh runs in the background. With no
    /// usable token and a recent failure it fails fast with that failure until the backoff has passed.
    ///
    /// Inlinable so that a hit costs the caller one hop and one call, without an async frame of its own; the actor is
    /// final because a call from another module would otherwise go through its vtable, which is never inlined.
    @inlinable
    public func token(validFor minimum: Duration = .zero) async throws -> FetchedToken {
        if let hit = cachedToken(validFor: minimum) { return hit }
        return try await fetchedToken(validFor: minimum)
    }

    /// The cached token when it stays valid for more than `minimum`, starting a refresh in the soft window.
    @usableFromInline
    func cachedToken(validFor minimum: Duration) -> FetchedToken? {
        let now = clock.now()
        guard let current, current.expiry - now > minimum else { return nil }
        if now >= current.refreshAt { refreshIfAllowed() }
        return current.fetched
    }

    /// A token from the fetch under way or a new one, when none cached will do.
    @usableFromInline
    func fetchedToken(validFor minimum: Duration) async throws -> FetchedToken {
        if inflight == nil {
            let now = network.now()
            if let held = failure, now < held.retryAt {
                failure?.wait = held.retryAt - now
                throw held.error
            }
            startFetch()
        }
        return try await waitForFetch()
    }

    /// A token the server answers now, never the cached one: the fetch under way, or a request sent now whatever the
    /// backoff (`retryDelay` is for retries that come by themselves).
    public func freshToken() async throws -> FetchedToken {
        if inflight == nil { startFetch() }
        return try await waitForFetch()
    }

    /// The wait before the next fetch, as chosen when the latest failure was reported (not what is left of it by the
    /// time this is asked); nil when the latest fetch succeeded.
    public func retryDelay() -> Duration? {
        failure?.wait
    }

    /// Forgets the cached token, but only if it is still `token` (the one the caller found rejected).
    public func invalidate(rejected token: String) {
        if current?.fetched.token == token { current = nil }
    }

    /// The cached token, if any, without fetching.
    public var cached: FetchedToken? { current?.fetched }

    private func refreshIfAllowed() {
        guard inflight == nil else { return }
        if let failure, network.now() < failure.retryAt { return }
        startFetch()
    }

    private func startFetch() {
        fetchCount += 1
        let number = fetchCount
        let (startedAt, startedUnix, until) = (clock.now(), unixTime(), network.now() + policy.deadline)
        let (provider, request) = (provider, request)
        // The provider's answer, whichever comes first of it and the deadline: a provider that ignores cancellation cannot
        // hold the cache past its deadline.
        let work = Task(executorPreference: policy.executor) {
            let result: Result<FetchedToken, TokenClientError>
            do {
                result = .success(try await provider.fetchToken(for: request))
            } catch let error as TokenClientError {
                result = .failure(error)
            } catch {
                result = .failure(.transport("the fetch was cancelled"))
            }
            await self.finish(number, with: result)
        }
        inflight = Fetch(number: number, startedAt: startedAt, startedUnix: startedUnix, until: until, work: work)
        if watchdog == nil {
            watchdog = Task(executorPreference: policy.executor) { await self.watch() }
        }
    }

    /// Fails each fetch still under way at its deadline with `timeout`, and ends when none is under way.
    private func watch() async {
        while let fetch = inflight {
            if network.now() >= fetch.until {
                fetch.work.cancel()
                finish(fetch.number, with: .failure(.timeout(policy.deadline)))
            } else {
                try? await network.sleep(fetch.until)
            }
        }
        watchdog = nil
    }

    /// Ends fetch `number`, unless its deadline ended it already.
    private func finish(_ number: Int, with result: Result<FetchedToken, TokenClientError>) {
        guard let fetch = inflight, fetch.number == number else { return }
        let (startedAt, startedUnix) = (fetch.startedAt, fetch.startedUnix)
        inflight = nil
        switch result {
        case .success(let fetched):
            let expiry = startedAt + .milliseconds(Int64(((Double(fetched.expiresAt) - startedUnix) * 1000).rounded(.down)))
            let lifetime = expiry - startedAt
            let margin = lifetime < policy.refreshMargin * 2 ? min(policy.refreshMargin, lifetime / 2) : policy.refreshMargin
            current = Entry(fetched: fetched, expiry: expiry, refreshAt: expiry - margin)
            failure = nil
            failures = 0
            resumeWaiters(with: .success(fetched))
        case .failure(let error):
            failures += 1
            var delay = min(policy.backoffCap, policy.backoffBase * (1 << min(failures - 1, 20))) * policy.jitter()
            if let asked = error.requestedWait { delay = max(delay, asked) }
            failure = (error, network.now() + delay, delay)
            resumeWaiters(with: .failure(error))
        }
    }

    private func waitForFetch() async throws -> FetchedToken {
        nextWaiter += 1
        let id = nextWaiter
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters[id] = continuation
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    private func cancelWaiter(_ id: UInt64) {
        waiters.removeValue(forKey: id)?.resume(throwing: CancellationError())
    }

    private func resumeWaiters(with result: Result<FetchedToken, TokenClientError>) {
        let waiting = waiters
        waiters = [:]
        for continuation in waiting.values { continuation.resume(with: result.mapError { $0 as any Error }) }
    }
}
