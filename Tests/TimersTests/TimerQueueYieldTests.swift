import TestSupport
import Testing
@testable import Timers

@MainActor
@Suite struct TimerQueueYieldTests {
    @Test func onARealClockWorkAfterAYieldRunsAfterWhatWaitsAlready() async throws {
        let queue = TimerQueue(clock: ContinuousClock())
        var order: [String] = []
        Task { @MainActor in order.append("waiting") }
        queue.afterYield { order.append("after the yield") }
        order.append("now")
        for _ in 0..<10_000 where order.count < 3 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(order == ["now", "waiting", "after the yield"])
    }

    @Test func onAManualClockItRunsAtTheSameInstantWhenTheClockIsAdvanced() async {
        let clock = ManualClock()
        let queue = TimerQueue(clock: clock)
        var ran = false
        queue.afterYield { ran = true }
        #expect(!ran)
        await clock.advance(by: .zero)
        #expect(ran)
        #expect(queue.now == .zero)
    }
}
