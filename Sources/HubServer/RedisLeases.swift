import RedisClient
import Sockets
import Timers

/// Channel leases in Redis, as LiveKit keeps its room→node map there: the key `tokencall:channel:NAME` holds the
/// owning hub's address with a time to live. Taken by a script around `SET NX PX … GET` (one exchange: set when free,
/// extended when this hub's already, else the holder), renewed and given back by scripts that touch the key only while
/// it still names this hub (a renewal takes a key that is gone again). Its
/// `RedisConnection` runs on the hub's loop, pipelining what the hub asks and never blocking it.
public final class RedisLeases: ChannelLeases {
    /// This hub's address as its clients reach it, what the keys hold.
    public let hubAddress: String
    public let leaseDuration: Duration
    public static let defaultLeaseDuration = Duration.seconds(3)
    private let redis: RedisAddress
    private let deadline: Duration
    /// Made on the hub's loop at `start`.
    private var connection: RedisConnection?

    static let keyPrefix = "tokencall:channel:"
    /// Sets the key when it is free and extends it when it names this hub already (taken before, or by this address's
    /// previous run), in one exchange; the holder before, nil when there was none.
    static let claimScript = """
        local holder = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2], 'GET')
        if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
        return holder
        """
    /// Extends the key while it names this hub, and takes it again when it is gone (Redis restarted empty, or the lease
    /// lapsed unclaimed: nobody else holds the channel); 0 when another hub holds it.
    static let renewScript = """
        local holder = redis.call('GET', KEYS[1])
        if holder == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
        if holder == false then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
        return 0
        """
    static let releaseScript = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end"

    /// Leases of `leaseDuration` for the hub at `hubAddress`; a request Redis has not answered within `deadline`
    /// fails (a join waiting for its claim is closed with 4503).
    public init(redis: RedisAddress, hubAddress: String, leaseDuration: Duration = defaultLeaseDuration, deadline: Duration = .seconds(1)) {
        self.hubAddress = hubAddress
        self.leaseDuration = leaseDuration
        self.redis = redis
        self.deadline = deadline
    }

    private var milliseconds: String { String(leaseDuration.wholeMilliseconds) }

    public func start(on loop: EventLoop) {
        connection = RedisConnection(address: redis, loop: loop, deadline: deadline)
    }

    public func claim(_ channel: String, _ answer: @escaping (ChannelClaim) -> Void) {
        guard let connection else { return answer(.unknown("the hub has not started")) }
        let key = Self.keyPrefix + channel
        connection.send([["EVAL", Self.claimScript, "1", key, hubAddress, milliseconds]]) { [self] result in
            switch result {
            case .failure(let error): answer(.unknown(error.description))
            case .success(let answers):
                let taken = answers[0]
                if taken.isNull { return answer(.ours) }
                if case .error(let message) = taken { return answer(.unknown("Redis refused the claim: \(message)")) }
                guard let holder = taken.text else { return answer(.unknown("Redis answered the claim with \(taken)")) }
                answer(holder == hubAddress ? .ours : .elsewhere(holder))
            }
        }
    }

    public func renew(_ channels: [String], _ answer: @escaping (Result<[String], LeaseStoreError>) -> Void) {
        guard let connection else { return answer(.failure(LeaseStoreError("the hub has not started"))) }
        let commands = channels.map { ["EVAL", Self.renewScript, "1", Self.keyPrefix + $0, hubAddress, milliseconds] }
        connection.send(commands) { result in
            switch result {
            case .failure(let error): answer(.failure(LeaseStoreError(error.description)))
            case .success(let answers):
                var lost: [String] = []
                for (channel, renewed) in zip(channels, answers) {
                    if case .error(let message) = renewed { return answer(.failure(LeaseStoreError("Redis refused a renewal: \(message)"))) }
                    if renewed != .integer(1) { lost.append(channel) }
                }
                answer(.success(lost))
            }
        }
    }

    public func release(_ channels: [String]) {
        guard !channels.isEmpty else { return }
        connection?.send(channels.map { ["EVAL", Self.releaseScript, "1", Self.keyPrefix + $0, hubAddress] }) { _ in }
    }

    public func finish(within limit: Duration, then done: @escaping () -> Void) {
        guard let connection else { return done() }
        connection.close(within: limit, then: done)
    }
}
