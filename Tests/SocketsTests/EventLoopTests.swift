import Foundation
import Sockets
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The one loop: work handed from other threads runs on it in order, deadlines run in deadline order, a socket's
/// readiness reaches its handler, and stop joins its thread.
@Suite struct EventLoopTests {
    final class Seen: Sendable {
        let items = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        func add(_ item: String) { items.withLock { $0.append(item) } }
        var all: [String] { items.withLock { $0 } }
    }

    @Test func workHandedFromOtherThreadsRunsOnTheLoopInOrder() {
        let loop = try! EventLoop(name: "test-order")
        defer { loop.stop() }
        let seen = Seen()
        for index in 0..<100 { loop.execute { seen.add("\(index)\(loop.inLoop ? "" : " off the loop")") } }
        loop.execute { seen.done.signal() }
        #expect(seen.done.wait(timeout: .now() + 10) == .success)
        #expect(seen.all == (0..<100).map { "\($0)" })
        #expect(!loop.inLoop)
    }

    @Test func deadlinesRunInTheirOrderAndACancelledOneNever() {
        let loop = try! EventLoop(name: "test-timers")
        defer { loop.stop() }
        let seen = Seen()
        let start = ContinuousClock.now
        loop.execute {
            loop.schedule(at: start + .milliseconds(120)) { seen.add("third"); seen.done.signal() }
            loop.schedule(at: start + .milliseconds(40)) { seen.add("first") }
            let cancelled = loop.schedule(at: start + .milliseconds(60)) { seen.add("cancelled") }
            loop.schedule(at: start + .milliseconds(80)) { seen.add("second") }
            loop.cancel(cancelled)
        }
        #expect(seen.done.wait(timeout: .now() + 10) == .success)
        #expect(seen.all == ["first", "second", "third"])
        #expect(ContinuousClock.now - start >= .milliseconds(120), "not before its deadline")
    }

    @Test func aSocketsReadinessReachesItsHandlerUntilItIsDeregistered() throws {
        let loop = try EventLoop(name: "test-ready")
        defer { loop.stop() }
        var ends: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let near = Socket(fd: ends[0]), far = Socket(fd: ends[1])
        near.makeNonBlocking()
        let seen = Seen()
        loop.execute {
            nonisolated(unsafe) var registration: EventLoop.Registration?
            var scratch = [UInt8](repeating: 0, count: 64)
            registration = loop.register(near.fd, for: .read) { readiness in
                var bytes: [UInt8] = []
                _ = near.receive(appendingTo: &bytes, scratch: &scratch)
                seen.add(String(decoding: bytes, as: UTF8.self))
                if bytes.contains(UInt8(ascii: "!")), let held = registration {
                    loop.deregister(held)
                    seen.done.signal()
                }
            }
        }
        #expect(far.send(Array("hi!".utf8)))
        #expect(seen.done.wait(timeout: .now() + 10) == .success)
        #expect(far.send(Array("unheard".utf8)))
        // A turn's handlers all run before the work they hand on: once this has run, a registered `near` was heard.
        loop.execute { loop.schedule(at: .now) { loop.execute { seen.done.signal() } } }
        #expect(seen.done.wait(timeout: .now() + 10) == .success)
        #expect(seen.all == ["hi!"])
    }

    @Test func stopRunsWhatWasHandedBeforeThenItsHooksJoinsTheThreadAndRefusesMore() {
        let loop = try! EventLoop(name: "test-stop")
        let seen = Seen()
        loop.execute { loop.whenStopping { seen.add("hook") } }
        loop.execute { seen.add("before") }
        loop.stop()
        #expect(seen.all == ["before", "hook"], "all done when stop returns: the thread was joined")
        #expect(!loop.execute { seen.add("after") }, "refused: the thread has ended, so it never runs")
        #expect(seen.all == ["before", "hook"])
    }

    @Test func stopHooksRunInTheOrderGivenAfterTheWorkHandedBeforeAndTimersDueLaterNever() {
        let loop = try! EventLoop(name: "test-hooks")
        let seen = Seen()
        loop.execute {
            loop.whenStopping { seen.add("first hook") }
            loop.schedule(at: .now + .seconds(3600)) { seen.add("timer") }
            loop.whenStopping { seen.add("second hook") }
        }
        for index in 0..<3 { loop.execute { seen.add("work \(index)") } }
        loop.stop()
        #expect(seen.all == ["work 0", "work 1", "work 2", "first hook", "second hook"])
    }

    /// A thread's id is given to a new thread once it has ended: the new one is not the stopped loop's.
    @Test func noThreadIsAStoppedLoopsNotEvenOneWithItsThreadsID() throws {
        let stopped = try EventLoop(name: "test-ended")
        let ended = Mutex<UInt>(0)
        do {
            let done = DispatchSemaphore(value: 0)
            stopped.execute { ended.withLock { $0 = UInt(pthread_self()) }; done.signal() }
            #expect(done.wait(timeout: .now() + 10) == .success)
        }
        stopped.stop()
        for _ in 0..<20 {
            let next = try EventLoop(name: "test-after")
            defer { next.stop() }
            let seen = Mutex<(reused: Bool, inStopped: Bool)?>(nil), done = DispatchSemaphore(value: 0)
            next.execute {
                seen.withLock { $0 = (UInt(pthread_self()) == ended.withLock { $0 }, stopped.inLoop) }
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 10) == .success)
            guard let (reused, inStopped) = seen.withLock({ $0 }) else { return }
            guard reused else { continue }  // another thread took the id first
            #expect(!inStopped)
            return
        }
        Issue.record("no new thread was given the stopped loop's thread id")
    }

    /// Many threads hand work at once: none is lost, and each thread's runs in the order it was handed.
    @Test func theMailboxLosesNothingAndKeepsEachThreadsOrder() {
        let loop = try! EventLoop(name: "test-mailbox")
        defer { loop.stop() }
        let threads = 8, each = 2000
        let runs = Mutex([[Int]](repeating: [], count: threads))
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<each {
                loop.execute { runs.withLock { $0[thread].append(loop.inLoop ? index : -1) } }
            }
        }
        let done = DispatchSemaphore(value: 0)
        loop.execute { done.signal() }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(runs.withLock { $0.map(\.count) } == Array(repeating: each, count: threads))
        #expect(runs.withLock { $0.allSatisfy { $0 == Array(0..<each) } }, "in order, on the loop")
    }

    @Test func aDeadlineCancelledByAnEarlierOneInTheSameTurnNeverRuns() {
        let loop = try! EventLoop(name: "test-cancel-due")
        defer { loop.stop() }
        let seen = Seen()
        loop.execute {
            let now = ContinuousClock.now
            var later: EventLoop.Timer?
            loop.schedule(at: now - .seconds(2)) { if let later { loop.cancel(later) }; seen.add("earlier") }
            later = loop.schedule(at: now - .seconds(1)) { seen.add("later") }
            loop.schedule(at: now) { loop.execute { seen.done.signal() } }
        }
        #expect(seen.done.wait(timeout: .now() + 10) == .success)
        #expect(seen.all == ["earlier"])
    }

    @Test func aDeadlineAlreadyPassedRunsAtTheNextTurnNotNever() {
        let loop = try! EventLoop(name: "test-late")
        defer { loop.stop() }
        let seen = Seen()
        loop.execute { loop.schedule(at: .now - .seconds(1)) { seen.add("late"); seen.done.signal() } }
        #expect(seen.done.wait(timeout: .now() + 10) == .success)
        #expect(seen.all == ["late"])
    }

    @Test func aTurnsHooksRunAfterTheWorkOfThatTurn() {
        let loop = try! EventLoop(name: "test-turns")
        defer { loop.stop() }
        let seen = Seen()
        loop.execute { loop.eachTurn { if seen.all.last == "work" { seen.add("hook"); seen.done.signal() } } }
        loop.execute { seen.add("work") }
        #expect(seen.done.wait(timeout: .now() + 10) == .success)
        #expect(seen.all == ["work", "hook"])
    }

    @Test func stopAskedOnTheLoopItselfEndsItWithoutWaitingForItself() {
        let loop = try! EventLoop(name: "test-self-stop")
        let seen = Seen()
        loop.execute { loop.whenStopping { seen.add("hook"); seen.done.signal() } }
        loop.execute { loop.stop(); seen.add("asked") }
        #expect(seen.done.wait(timeout: .now() + 10) == .success, "the loop ended instead of joining its own thread")
        #expect(seen.all == ["asked", "hook"])
        #expect(loop.isStopping)
    }

    /// A connection that waits for nothing (the hub client's `cut network` fault) whose peer hung up: epoll reports a
    /// hang-up even to a descriptor that asks for nothing, so the loop spun at every turn on it; it is not watched
    /// until it waits for something again, and then hears the hang-up once.
    @Test func aHungUpSocketThatWaitsForNothingIsNotReportedUntilItWaitsAgain() {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        let (mine, peer) = (pair[0], pair[1])
        defer { _ = close(mine) }
        let loop = try! EventLoop(name: "test-hung-up")
        defer { loop.stop() }
        let calls = Atomic(0)
        let seen = Seen()
        loop.execute {
            let registration = loop.register(mine, for: .read) { _ in calls.add(1, ordering: .relaxed) }
            loop.change(registration, to: [])
            _ = close(peer)
            // Turns pass while a deadline 100 ms away is waited for: the hang-up must reach nobody meanwhile.
            loop.schedule(at: .now + .milliseconds(100)) {
                seen.add("quiet for \(calls.load(ordering: .relaxed)) calls")
                loop.change(registration, to: .read)
                loop.schedule(at: .now + .milliseconds(50)) {
                    seen.add("heard \(calls.load(ordering: .relaxed) > 0)")
                    loop.deregister(registration)
                    seen.done.signal()
                }
            }
        }
        #expect(seen.done.wait(timeout: .now() + 10) == .success)
        #expect(seen.all == ["quiet for 0 calls", "heard true"])
    }
}
