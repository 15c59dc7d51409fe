import Testing
import TestSupport
import Timers

@MainActor
struct ScaledClockTests {
    @Test func runsSpeedTimesAsFastAsItsBaseAndItsWallTimeWithIt() async {
        let base = ManualClock()
        let clock = ScaledClock(speed: 3600, base: base, unixTime: 1_000)
        await base.advance(by: .seconds(2))
        #expect(clock.now.offset == .seconds(7200))
        #expect(clock.unixTime == 8_200)
        await base.advance(by: .milliseconds(1))
        #expect(clock.now.offset == .milliseconds(7_203_600))
    }

    @Test func aDayAt3600TimesWakesAfter24BaseSecondsNotBefore() async throws {
        let base = ManualClock()
        let clock = ScaledClock(speed: 3600, base: base, unixTime: 0)
        let sleeper = Task { try await clock.sleep(until: .init(offset: .seconds(86_400))); return clock.now.offset }
        #expect(await base.waitForSleepers())
        await base.advance(by: .milliseconds(23_999))
        #expect(base.sleeperCount == 1, "asleep at 86396.4 s of the scaled clock")
        await base.advance(by: .milliseconds(1))
        #expect(try await sleeper.value == .seconds(86_400))
    }

    @Test func aDeadlineBetweenBaseInstantsIsReachedOnWaking() async throws {
        let base = ManualClock()
        let clock = ScaledClock(speed: 3, base: base, unixTime: 0)
        let sleeper = Task { try await clock.sleep(until: .init(offset: .seconds(1))); return clock.now.offset }
        #expect(await base.waitForSleepers())
        await base.advance(by: .seconds(1))
        #expect(try await sleeper.value >= .seconds(1), "1 s is not a whole number of attoseconds at 3x")
    }

    @Test func aTimerQueueOnItFiresAtItsDeadlineInCallTime() async {
        let base = ManualClock()
        let queue = TimerQueue(clock: ScaledClock(speed: 3600, base: base, unixTime: 0))
        var firedAt: Duration?
        queue.schedule(after: .seconds(86_370)) { firedAt = queue.now }
        #expect(await base.waitForSleepers())
        await base.advance(by: .milliseconds(23_990))
        #expect(firedAt == nil)
        await base.advance(by: .milliseconds(2))
        #expect(firedAt.map { $0 >= .seconds(86_370) && $0 < .seconds(86_400) } == true, "fired at \(String(describing: firedAt))")
    }

    @Test func speedsOutsideTheRangeAreBroughtIntoIt() {
        #expect(ScaledClock(speed: 0, unixTime: 0).speed == 1)
        #expect(ScaledClock(speed: 10_000, unixTime: 0).speed == 3600)
    }
}
