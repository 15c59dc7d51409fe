import Foundation
import Synchronization

/// At most `most` threads, each running waiting exchanges in the order they came until none is left, then ending: a
/// thousand requests at once wait their turn on a few threads instead of starting a thousand.
final class ExchangeWorkers: Sendable {
    private struct State {
        var waiting: [@Sendable () -> Void] = []
        /// Where the next job to run is in `waiting`; the ones before it have been taken, and are dropped when the
        /// queue empties or they are most of it.
        var next = 0
        var running = 0
    }

    private let most: Int
    private let state = Mutex(State())

    init(most: Int) {
        precondition(most > 0, "at least one worker")
        self.most = most
    }

    /// Whether no worker runs (each ends when it finds nothing waiting).
    var idle: Bool { state.withLock { $0.running == 0 } }

    /// Runs `job` on a worker as soon as one is free.
    func run(_ job: @escaping @Sendable () -> Void) {
        let startsOne = state.withLock { state in
            state.waiting.append(job)
            guard state.running < most else { return false }
            state.running += 1
            return true
        }
        if startsOne { Thread.detachNewThread { [self] in work() } }
    }

    private func work() {
        while let job = state.withLock({ state -> (@Sendable () -> Void)? in
            guard state.next < state.waiting.count else {
                state.waiting.removeAll(keepingCapacity: true)
                state.next = 0
                state.running -= 1
                return nil
            }
            let job = state.waiting[state.next]
            state.next += 1
            if state.next >= 64, state.next * 2 >= state.waiting.count {
                state.waiting.removeFirst(state.next)
                state.next = 0
            }
            return job
        }) {
            job()
        }
    }
}
