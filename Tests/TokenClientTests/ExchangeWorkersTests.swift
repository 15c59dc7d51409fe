import Synchronization
import TestSupport
import Testing
@testable import TokenClient

@Suite struct ExchangeWorkersTests {
    @Test func manyJobsAtOnceEachRunOnceOnAtMostTheWorkers() async {
        let workers = ExchangeWorkers(most: 3)
        let seen = Mutex((running: 0, most: 0, started: [Int]()))
        for index in 0..<500 {
            workers.run {
                seen.withLock { $0.running += 1; $0.most = max($0.most, $0.running); $0.started.append(index) }
                seen.withLock { $0.running -= 1 }
            }
        }
        #expect(await eventually { seen.withLock { $0.started.count } == 500 })
        let (most, started) = seen.withLock { ($0.most, $0.started) }
        #expect(most <= 3)
        #expect(started.count == 500 && Set(started) == Set(0..<500), "each job ran once")
    }

    @Test func aWorkerThatFoundNothingLeftIsStartedAgainForTheNextJob() async {
        let workers = ExchangeWorkers(most: 1)
        let ran = Mutex(0)
        workers.run { ran.withLock { $0 += 1 } }
        #expect(await eventually { ran.withLock { $0 } == 1 })
        #expect(await eventually { workers.idle })
        workers.run { ran.withLock { $0 += 1 } }
        #expect(await eventually { ran.withLock { $0 } == 2 })
    }
}
