import RedisClient

/// Channel leases in Redis, as LiveKit keeps its room→node map there: the key `tokencall:channel:NAME` holds the
/// owning hub's address with a time to live. Taken with `SET NX PX … GET` (one exchange: set when free, else the
/// holder), renewed and given back by scripts that touch the key only while it still names this hub.
public final class RedisLeases: ChannelLeases, @unchecked Sendable {
    /// This hub's address as its clients reach it, what the keys hold.
    public let hubAddress: String
    public let leaseDuration: Duration
    private let connection: RedisConnection

    static let keyPrefix = "tokencall:channel:"
    static let renewScript = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end"
    static let releaseScript = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end"

    public init(redis: RedisAddress, hubAddress: String, leaseDuration: Duration = .seconds(3), deadline: Duration = .milliseconds(300)) {
        self.hubAddress = hubAddress
        self.leaseDuration = leaseDuration
        connection = RedisConnection(address: redis, deadline: deadline)
    }

    private var milliseconds: String { String(leaseDuration.components.seconds * 1000 + leaseDuration.components.attoseconds / 1_000_000_000_000_000) }

    public func claim(_ channel: String) -> ChannelClaim {
        let key = Self.keyPrefix + channel
        do throws(RedisError) {
            let answer = try connection.call(["SET", key, hubAddress, "NX", "PX", milliseconds, "GET"])
            if answer.isNull { return .ours }
            if case .error(let message) = answer { return .unknown("Redis refused SET: \(message)") }
            guard let holder = answer.text else { return .unknown("Redis answered SET with \(answer)") }
            guard holder == hubAddress else { return .elsewhere(holder) }
            // Ours already (taken before, or by this address's previous run): renewed.
            _ = try connection.call(["PEXPIRE", key, milliseconds])
            return .ours
        } catch {
            return .unknown(error.description)
        }
    }

    public func renew(_ channels: [String]) -> Result<[String], LeaseStoreError> {
        guard !channels.isEmpty else { return .success([]) }
        let commands = channels.map { ["EVAL", Self.renewScript, "1", Self.keyPrefix + $0, hubAddress, milliseconds] }
        do throws(RedisError) {
            let answers = try connection.pipeline(commands)
            var lost: [String] = []
            for (channel, answer) in zip(channels, answers) {
                if case .error(let message) = answer { return .failure(LeaseStoreError("Redis refused a renewal: \(message)")) }
                if answer != .integer(1) { lost.append(channel) }
            }
            return .success(lost)
        } catch {
            return .failure(LeaseStoreError(error.description))
        }
    }

    public func release(_ channels: [String]) {
        guard !channels.isEmpty else { return }
        _ = try? connection.pipeline(channels.map { ["EVAL", Self.releaseScript, "1", Self.keyPrefix + $0, hubAddress] })
    }
}
