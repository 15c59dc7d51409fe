import Dispatch
import Foundation
import RedisClient
import Sockets
import Synchronization
import TestSupport
import Testing

/// `serve --redis redis://:PASSWORD@HOST:PORT`: the password goes to Redis in AUTH, and into no error or address that
/// tokencall shows.
@Suite struct RedisPasswordTests {
    /// It holds what ends a URL's authority, so that a reader of URLs would stop inside it.
    static let password = "hunter2/x?y#z"
    /// What of the password a leak would show at least.
    static let leaked = "hunter2"

    @Test func theAddressIsShownWithoutItsPassword() throws {
        let address = try RedisAddress(parsing: "redis://:\(Self.password)@127.0.0.1:6390/2")
        #expect(address.description == "redis://127.0.0.1:6390/2")
        #expect(address.port == 6390 && address.database == 2)
    }

    @Test(arguments: [
        "redis://:\(RedisPasswordTests.password)@127.0.0.1:99999",
        "redis://:\(RedisPasswordTests.password)@127.0.0.1:6379/16",
        "redis://:\(RedisPasswordTests.password)@",
        "redis://\(RedisPasswordTests.password)@127.0.0.1",
        "rediss://:\(RedisPasswordTests.password)@127.0.0.1",
        "redis://:a@\(RedisPasswordTests.password)@127.0.0.1:0",
    ])
    func anAddressRefusedNamesItWithoutThePassword(_ text: String) {
        let error = #expect(throws: RedisError.self) { _ = try RedisAddress(parsing: text) }
        #expect(error?.description.hasPrefix("Redis address \"") == true, "\(String(describing: error))")
        #expect(error?.description.contains(Self.leaked) == false, "\(String(describing: error))")
    }

    /// By address, and by a name looked up on a thread of its own.
    @Test(arguments: ["127.0.0.1", "localhost"])
    func aRedisThatIsDownIsNamedWithoutThePassword(_ host: String) throws {
        let (listener, _, port) = try Socket.listen(host: "127.0.0.1", port: 0)
        listener.close()
        let error = Self.failure(port: port, host: host)
        #expect(error?.description.hasPrefix("cannot connect to redis://\(host):\(port)/1: ") == true, "\(String(describing: error))")
        #expect(error?.description.contains(Self.leaked) == false)
    }

    @Test func aRedisThatRefusesTheAUTHIsNamedWithoutThePassword() throws {
        let redis = try FakeRedis(answer: "-WRONGPASS invalid username-password pair or user is disabled.\r\n")
        defer { redis.stop() }
        let error = Self.failure(port: redis.port)
        #expect(redis.heard.contains("AUTH\r\n$\(Self.password.utf8.count)\r\n\(Self.password)\r\n"), "the password went to Redis")
        #expect(error?.description == "redis://127.0.0.1:\(redis.port)/1 refused the connection's setup: WRONGPASS invalid username-password pair or user is disabled.")
    }

    /// As Redis words a command it does not know: its arguments quoted.
    @Test func aServerQuotingThePasswordBackHasItHidden() throws {
        let redis = try FakeRedis(answer: "-ERR unknown command 'AUTH', with args beginning with: '\(Self.password)' \r\n")
        defer { redis.stop() }
        let error = Self.failure(port: redis.port)
        #expect(redis.heard.contains(Self.password))
        #expect(error?.description == "redis://127.0.0.1:\(redis.port)/1 refused the connection's setup: ERR unknown command 'AUTH', with args beginning with: (not shown)")
    }

    @Test func aServerQuotingTheBeginningOfALongPasswordShowsNoneOfIt() throws {
        // Redis cuts the arguments it quotes at 128 bytes: a longer password shows as its beginning alone.
        let redis = try FakeRedis(answer: "-ERR unknown command 'AUTH', with args beginning with: '\(Self.password.dropLast(2))\r\n")
        defer { redis.stop() }
        let error = Self.failure(port: redis.port)
        #expect(error != nil)
        #expect(error?.description.contains(Self.leaked) == false)
    }

    @Test(arguments: ["", "+OK\r\n"])
    func aRedisThatHangsUpOrGoesSilentIsNamedWithoutThePassword(_ answer: String) throws {
        let redis = try FakeRedis(answer: answer)
        defer { redis.stop() }
        let error = Self.failure(port: redis.port)
        #expect(error != nil)
        #expect(error?.description.contains("redis://127.0.0.1:\(redis.port)/1 ") == true, "\(String(describing: error))")
        #expect(error?.description.contains(Self.leaked) == false)
    }

    /// A PING through a connection with the password to `host`:`port`: what it failed with.
    static func failure(port: UInt16, host: String = "127.0.0.1") -> RedisError? {
        guard case .failure(let error)? = try? exchange(RedisAddress(parsing: "redis://:\(password)@\(host):\(port)/1"), [["PING"]]) else {
            return nil
        }
        return error
    }
}

/// Sends `commands` through a `RedisConnection` on a loop of its own and waits for their answers.
func exchange(_ address: RedisAddress, _ commands: [[String]], deadline: Duration = .milliseconds(500)) throws -> Result<[RESPValue], RedisError> {
    let loop = try EventLoop(name: "redis-test")
    defer { loop.stop() }
    let answer = Mutex<Result<[RESPValue], RedisError>?>(nil)
    let done = DispatchSemaphore(value: 0)
    loop.execute {
        let connection = RedisConnection(address: address, loop: loop, deadline: deadline)
        connection.send(commands) { result in
            answer.withLock { $0 = result }
            connection.close("the test is done")
            done.signal()
        }
    }
    done.wait()
    return answer.withLock { $0! }
}

/// A Redis for one connection: it reads what comes until the password's line, answers `answer` (nothing more to
/// what follows), and hangs up when `answer` is empty, else once the client does.
final class FakeRedis: Sendable {
    let port: UInt16
    private let listener: Socket
    private let bytes = Mutex<[UInt8]>([])
    private let threads = OwnedThreads()

    init(answer: String) throws {
        (listener, _, port) = try Socket.listen(host: "127.0.0.1", port: 0)
        threads.start { [self] in
            guard case .client(let client, _) = listener.accept() else { return }
            defer { client.close() }
            var heard: [UInt8] = [], scratch = [UInt8](repeating: 0, count: 4096)
            let end = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < end, !String(decoding: heard, as: UTF8.self).contains("\(RedisPasswordTests.password)\r\n") {
                guard client.waitReadable(milliseconds: 50) else { continue }
                guard client.receive(appendingTo: &heard, scratch: &scratch) != .closed else { break }
            }
            bytes.withLock { $0 = heard }
            guard !answer.isEmpty else { return }
            client.send(Array(answer.utf8))
            while ContinuousClock.now < end {
                if client.waitReadable(milliseconds: 50), client.receive(appendingTo: &heard, scratch: &scratch) == .closed { break }
            }
        }
    }

    /// What the client sent before the answer.
    var heard: String {
        threads.joinAll()
        return String(decoding: bytes.withLock { $0 }, as: UTF8.self)
    }

    /// Stops waiting for a client and waits for its thread, which ends within its 5 s once a client came.
    func stop() {
        listener.shutdownBoth()
        threads.joinAll()
    }

    deinit { listener.close() }
}
