import Dispatch
import Sockets
import Testing

/// What belongs to a loop is reached on its thread only: an actor on the loop runs there, a loop handler enters it
/// without a hop, and the loop's own entry points and a `LoopBound` trap anywhere else.
@Suite struct EventLoopOwnershipTests {
    actor Tally {
        let loop: EventLoop
        private var count = 0
        init(on loop: EventLoop) { self.loop = loop }
        nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

        /// The new count, and whether it was counted on the loop's thread.
        func bump() -> (count: Int, onLoop: Bool) {
            count += 1
            return (count, loop.inLoop)
        }

        /// Counts from code that is on the loop's thread but not in a task of this actor (a loop handler).
        nonisolated func counted() -> Int { assumeIsolated { $0.bump().count } }
    }

    @Test func anActorOnALoopRunsItsMethodsOnTheLoopsThread() async throws {
        let loop = try EventLoop(name: "test-actor")
        defer { loop.stop() }
        let tally = Tally(on: loop)
        let bumps = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 { group.addTask { await tally.bump().onLoop } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(bumps == Array(repeating: true, count: 50))
        #expect(await tally.bump().count == 51, "one count: the actor's state was reached one job at a time")
    }

    @Test func aLoopHandlerEntersAnActorOnItsLoopWithoutAHop() async throws {
        let loop = try EventLoop(name: "test-assume")
        defer { loop.stop() }
        let tally = Tally(on: loop)
        let counted = await withCheckedContinuation { (done: CheckedContinuation<Int, Never>) in
            loop.execute {
                loop.schedule(at: .now) { done.resume(returning: tally.counted()) }
            }
        }
        #expect(counted == 1)
        #expect(await tally.bump() == (2, true))
    }

    @Test func assumingTheLoopsIsolationOffItsThreadTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let loop = try! EventLoop(name: "test-off-actor")
            _ = Tally(on: loop).counted()
        }
        #expect(result.map { said($0.standardErrorContent, "code isolated to the loop test-off-actor ran off its thread") } == true)
    }

    @Test func registeringFromAnotherThreadTrapsNamingTheLoop() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let loop = try! EventLoop(name: "test-off-reg")
            _ = loop.register(0, for: .read) { _ in }
        }
        #expect(result.map { said($0.standardErrorContent, "EventLoop.register was called off the thread of the loop test-off-reg") } == true)
    }

    @Test func schedulingFromAnotherThreadTraps() async throws {
        await #expect(processExitsWith: .failure) {
            let loop = try! EventLoop(name: "test-off-timer")
            loop.schedule(at: .now) {}
        }
    }

    @Test func aLoopBoundValueReachedFromAnotherThreadTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let loop = try! EventLoop(name: "test-off-bound")
            let bound = LoopBound(handing: [1, 2, 3], to: loop)
            _ = bound.value
        }
        #expect(result.map { said($0.standardErrorContent, "a value of the loop test-off-bound was reached from another thread") } == true)
    }

    @Test func theSameCallsOnTheLoopsThreadRun() throws {
        let loop = try EventLoop(name: "test-on-loop")
        defer { loop.stop() }
        let done = DispatchSemaphore(value: 0)
        let bound = LoopBound(handing: [1, 2, 3], to: loop)
        loop.execute {
            loop.schedule(at: .now) { if bound.value == [1, 2, 3] { done.signal() } }
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
    }
}

/// Whether `bytes` (a trap's words on stderr) hold `words`.
func said(_ bytes: [UInt8], _ words: String) -> Bool {
    let needle = Array(words.utf8)
    guard bytes.count >= needle.count else { return false }
    return (0...(bytes.count - needle.count)).contains { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
}
