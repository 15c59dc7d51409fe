import Dispatch
import Sockets
import Synchronization
import TLS
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The one loop adapter: one armed deadline (an earlier one replaces it, a later one waits), release takes the socket
/// off the loop without closing it, and close closes it once.
@Suite struct LoopConnectionTests {
    /// What a connection heard, from its loop's thread.
    final class Heard: Sendable {
        private let items = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        func add(_ item: String) { items.withLock { $0.append(item) } }
        var all: [String] { items.withLock { $0 } }
    }

    /// A connected pair of non-blocking sockets: the near end for the loop, the far end for the test.
    static func pair() -> (near: Int32, far: Int32) {
        var ends: [Int32] = [0, 0]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        Socket(fd: ends[0]).makeNonBlocking()
        return (ends[0], ends[1])
    }

    /// Runs `body` on `loop`'s thread and returns what it gives.
    static func onLoop<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () -> T) -> T {
        let result = Mutex<T?>(nil), done = DispatchSemaphore(value: 0)
        loop.execute {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        precondition(done.wait(timeout: .now() + 10) == .success, "the loop did not run the work")
        return result.withLock { $0! }
    }

    /// A connection on `loop` over `fd`, telling `heard` what it hears.
    static func connection(_ fd: Int32, on loop: EventLoop, _ heard: Heard) -> LoopBound<LoopConnection> {
        onLoop(loop) {
            let connection = LoopConnection(Wire(Socket(fd: fd)), on: loop, ready: { _ in heard.add("ready") },
                                            deadline: { heard.add("deadline"); heard.done.signal() })
            return LoopBound(connection, on: loop)
        }
    }

    /// Waits until the loop has done a whole turn after this call: a turn's deadlines run in order, and work handed
    /// from one runs at the next.
    static func aTurnLater(_ loop: EventLoop) {
        let done = DispatchSemaphore(value: 0)
        loop.execute { loop.schedule(at: .now) { loop.execute { done.signal() } } }
        precondition(done.wait(timeout: .now() + 10) == .success, "the loop did not turn")
    }

    @Test func anEarlierDeadlineReplacesTheArmedOne() throws {
        let loop = try EventLoop(name: "test-earlier")
        defer { loop.stop() }
        let (near, far) = Self.pair()
        defer { close(far) }
        let heard = Heard()
        let held = Self.connection(near, on: loop, heard)
        let start = ContinuousClock.now
        let armed = Self.onLoop(loop) {
            held.value.arm(at: start + .seconds(3600))
            held.value.arm(at: start - .seconds(1))
            return held.value.armed
        }
        #expect(armed == start - .seconds(1))
        #expect(heard.done.wait(timeout: .now() + 10) == .success, "the earlier deadline came, not an hour later")
        #expect(Self.onLoop(loop) { held.value.armed } == nil, "nothing armed once it came")
        Self.onLoop(loop) { held.value.close() }
        #expect(heard.all == ["deadline"])
    }

    @Test func aLaterDeadlineWaitsForTheArmedOne() throws {
        let loop = try EventLoop(name: "test-later")
        defer { loop.stop() }
        let (near, far) = Self.pair()
        defer { close(far) }
        let heard = Heard()
        let held = Self.connection(near, on: loop, heard)
        let start = ContinuousClock.now
        let armed = Self.onLoop(loop) {
            held.value.arm(at: start + .seconds(3600))
            held.value.arm(at: start + .seconds(7200))
            return held.value.armed
        }
        #expect(armed == start + .seconds(3600))
        Self.onLoop(loop) { held.value.close() }
    }

    @Test func releaseStopsReadinessAndDeadlinesAndLeavesTheSocketOpen() throws {
        let loop = try EventLoop(name: "test-release")
        defer { loop.stop() }
        let (near, far) = Self.pair()
        defer { close(near); close(far) }
        let heard = Heard()
        let held = Self.connection(near, on: loop, heard)
        let released = Self.onLoop(loop) {
            held.value.arm(at: .now - .seconds(1))  // due this turn, had it not been released
            held.value.release()
            held.value.arm(at: .now - .seconds(1))  // off the loop: not armed
            return !held.value.isRegistered && held.value.armed == nil
        }
        #expect(released)
        #expect(Socket(fd: far).send(Array("after".utf8)))
        Self.aTurnLater(loop)
        Self.aTurnLater(loop)
        #expect(heard.all == [], "neither the readable socket nor the deadline reached a released connection")
        #expect(fcntl(near, F_GETFD) != -1, "the socket is its owner's to close or hand over")
    }

    @Test func aRegisteredConnectionHearsItsSocket() throws {
        let loop = try EventLoop(name: "test-hears")
        defer { loop.stop() }
        let (near, far) = Self.pair()
        defer { close(far) }
        let heard = Heard()
        let held = Self.connection(near, on: loop, heard)
        #expect(Socket(fd: far).send(Array("x".utf8)))
        Self.aTurnLater(loop)
        Self.onLoop(loop) { held.value.close() }
        #expect(heard.all.first == "ready")
    }

    /// A second close must not close the descriptor number again: by then it may be another connection's.
    @Test func closeClosesTheSocketOnce() throws {
        let loop = try EventLoop(name: "test-close")
        defer { loop.stop() }
        for _ in 0..<20 {
            let (near, far) = Self.pair()
            defer { close(far) }
            let held = Self.connection(near, on: loop, Heard())
            Self.onLoop(loop) { held.value.close() }
            #expect(fcntl(near, F_GETFD) == -1, "closed")
            let reused = Self.pair()  // the lowest free numbers: most likely `near` again
            defer { close(reused.near); close(reused.far) }
            guard reused.near == near || reused.far == near else { continue }  // another test took the number
            Self.onLoop(loop) { held.value.close() }
            #expect(fcntl(near, F_GETFD) != -1, "the second close left the number's new socket open")
            return
        }
        Issue.record("the descriptor number was never free to reuse")
    }
}
