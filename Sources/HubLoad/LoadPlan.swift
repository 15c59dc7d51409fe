import HubProtocol
import TokenClient

/// What `tokencall load` runs: how many clients, in how many channels, for how long, with tokens from where.
public struct LoadPlan: Sendable {
    public var provider: any TokenProvider
    public var clients: Int
    public var channels: Int
    public var duration: Duration
    /// Video frames each client sends a second (0 for none).
    public var framesPerSecond: Int
    /// One token request's deadline.
    public var requestTimeout: Duration
    /// How long the clients take to arrive: client k of N starts k/N of it after the run's start (zero: all at once, a
    /// join storm).
    public var rampUp: Duration

    public static let clientRange = 1...10_000
    /// Seconds a run lasts.
    public static let durationRange = 1...3600
    /// At most the hub's own rate limit.
    public static let framesPerSecondRange = 0...HubVideoFrame.maxPerSecond

    public init(provider: any TokenProvider, clients: Int, channels: Int, duration: Duration,
                framesPerSecond: Int = 1, requestTimeout: Duration = .seconds(10), rampUp: Duration = .zero) {
        (self.provider, self.clients, self.channels, self.duration) = (provider, clients, channels, duration)
        (self.framesPerSecond, self.requestTimeout, self.rampUp) = (framesPerSecond, requestTimeout, rampUp)
    }

    /// Client `index` joins channel `load-K` for K = index mod `channels`, as uid index + 1.
    func channel(of index: Int) -> String { "load-\(index % channels)" }
    func uid(of index: Int) -> UInt32 { UInt32(index + 1) }
    /// When client `index` starts, after the run's start.
    func arrival(of index: Int) -> Duration { rampUp * (Double(index) / Double(clients)) }
}

/// The names of what a run measures, as printed and as JSON members.
enum Measure {
    static let tokenFetch = "tokenFetch"
    static let join = "join"
    static let renewal = "renewal"
    static let fanOut = "videoFanOut"
    static let stampede = "renewalStampede"
}

extension LoadPlan {
    /// A token for client `index`, within the request deadline; the error's kind is tallied on failure.
    func fetchToken(for index: Int, tally: LoadTally, as measure: String) async -> String? {
        let request = TokenRequest(channel: channel(of: index), user: .uid(uid(of: index)))
        let began = ContinuousClock.now
        let provider = self.provider, limit = requestTimeout
        let outcome = await withTaskGroup(of: Result<FetchedToken, any Error>?.self) { group in
            group.addTask { do { return .success(try await provider.fetchToken(for: request)) } catch { return .failure(error) } }
            group.addTask { try? await Task.sleep(for: limit); return nil }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        // Cancelled: the run ended, and what the fetch came to is not the server's doing.
        guard !Task.isCancelled else { return nil }
        switch outcome {
        case .success(let fetched)?:
            tally.record(measure, .now - began)
            return fetched.token
        case .failure(let error)?:
            tally.error("\(measure): \(Self.kind(of: error))")
        case nil:
            tally.error("\(measure): no answer within \(limit)")
        }
        return nil
    }

    /// A failure's kind, without what varies between failures of that kind; a provider's error of another type by
    /// its type's name.
    static func kind(of error: any Error) -> String {
        (error as? TokenClientError)?.kind ?? String(describing: type(of: error))
    }
}
