import Dispatch
import RedisClient
import Testing

/// How a `RedisConnection` reaches its server: from its loop, by a `Dial`.
@Suite struct RedisConnectTests {
    /// Issue 33: a host name is looked up on a thread of its own. It was looked up on Dispatch's global queue, where it
    /// waited behind whatever held its few threads, and the request failed "no connection within" its deadline.
    @Test func aNameIsLookedUpWithoutWaitingForDispatchsThreads() throws {
        let redis = try FakeRedis(answer: "+OK\r\n+OK\r\n+PONG\r\n")
        defer { redis.stop() }
        let release = DispatchSemaphore(value: 0)
        let busy = 64
        for _ in 0..<busy { DispatchQueue.global().async { _ = release.wait(timeout: .now() + 5) } }
        defer { for _ in 0..<busy { release.signal() } }
        let answer = try exchange(RedisAddress(parsing: "redis://:\(RedisPasswordTests.password)@localhost:\(redis.port)/1"), [["PING"]])
        #expect(answer == .success([.simple("PONG")]))
    }
}
