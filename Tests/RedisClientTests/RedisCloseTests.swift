import Dispatch
import RedisClient
import Sockets
import Synchronization
import Testing

/// How a `RedisConnection` ends for an owner that is stopping: on its loop, which goes on turning.
@Suite struct RedisCloseTests {
    /// What `close(within:then:)` did, seen from the test's thread.
    struct Closed {
        var answer: Result<[RESPValue], RedisError>?
        /// How long after the close began `done` was called, and the loop's other timer (due 50 ms after it) ran.
        var done: Duration?, otherTimer: Duration?
    }

    /// Asks PING of the Redis at `address`, begins closing once `after` has passed, and waits (5 s at most) for `done`.
    static func closing(_ address: RedisAddress, after: Duration, within limit: Duration) throws -> Closed {
        let loop = try EventLoop(name: "redis-test")
        defer { loop.stop() }
        let seen = Mutex(Closed())
        let finished = DispatchSemaphore(value: 0)
        loop.execute {
            let connection = RedisConnection(address: address, loop: loop, deadline: .seconds(5))
            connection.send([["PING"]]) { result in seen.withLock { $0.answer = result } }
            loop.schedule(at: .now + after) {
                let began = ContinuousClock.now
                loop.schedule(at: began + .milliseconds(50)) { seen.withLock { $0.otherTimer = .now - began } }
                connection.close(within: limit) {
                    seen.withLock { $0.done = .now - began }
                    finished.signal()
                }
            }
        }
        _ = finished.wait(timeout: .now() + 5)
        return seen.withLock { $0 }
    }

    static func address(_ redis: FakeRedis) throws -> RedisAddress {
        try RedisAddress(parsing: "redis://:\(RedisPasswordTests.password)@127.0.0.1:\(redis.port)/1")
    }

    /// Issue 33: a Redis that does not answer holds its connection's close up `limit` at most, and its loop serves
    /// everything else meanwhile. The close blocked the loop's thread in `poll` (the hub's, as it stopped): the other
    /// timer ran only once the half second was over.
    @Test func aRedisThatDoesNotAnswerHoldsTheCloseUpToItsLimitWhileTheLoopTurns() throws {
        let redis = try FakeRedis(answer: "+OK\r\n")  // the AUTH's answer, then silence
        defer { redis.stop() }
        let closed = try Self.closing(Self.address(redis), after: .milliseconds(200), within: .milliseconds(500))
        let done = try #require(closed.done)
        #expect(done >= .milliseconds(500) && done < .milliseconds(900), "done after \(done)")
        let other = try #require(closed.otherTimer)
        #expect(other < .milliseconds(300), "the loop's other timer, due at 50 ms, ran after \(other)")
        guard case .failure(let error)? = closed.answer else { Issue.record("\(String(describing: closed.answer))"); return }
        #expect(error.description.hasSuffix("did not answer within 0.5 seconds, as its owner stopped"), "\(error)")
    }

    /// Issue 33: what was asked in the turn the close begins, the connection still being made, is sent and answered
    /// before `done`. It failed at once ("the loop stopped while connecting"): a hub stopping just as a channel emptied
    /// kept that channel's lease until it lapsed.
    @Test func whatWasAskedJustBeforeTheCloseIsAnsweredFirst() throws {
        let redis = try FakeRedis(answer: "+OK\r\n+OK\r\n+PONG\r\n")
        defer { redis.stop() }
        let closed = try Self.closing(Self.address(redis), after: .zero, within: .seconds(2))
        #expect(closed.answer == .success([.simple("PONG")]))
        let done = try #require(closed.done)
        #expect(done < .seconds(1), "done after \(done)")
    }
}
