import Synchronization
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
        let timer = OneTimer(speed: 3600, after: .seconds(86_370))
        await timer.base.advance(by: .milliseconds(23_990))
        #expect(timer.firedAt == nil)
        await timer.base.advance(by: .milliseconds(2))
        #expect(timer.firedAt.map { $0 >= .seconds(86_370) && $0 < .seconds(86_400) } == true, "fired at \(String(describing: timer.firedAt))")
    }

    @Test func speedsOutsideTheRangeAreBroughtIntoIt() {
        #expect(ScaledClock(speed: 0, unixTime: 0).speed == 1)
        #expect(ScaledClock(speed: 10_000, unixTime: 0).speed == 3600)
    }

    @Test func theSpeedKeysHalveAndDoubleWithinOneTo3600AndSpacePausesAndResumes() {
        let clock = ScaledClock(speed: 3600, unixTime: 0)
        #expect(clock.perform(.faster) == .running(speed: 3600))
        for _ in 0..<20 { clock.perform(.slower) }
        #expect(clock.phase == .running(speed: 1))
        #expect(clock.perform(.faster) == .running(speed: 2))
        #expect(clock.perform(.pause) == .paused(speed: 2))
        #expect(clock.perform(.faster) == .paused(speed: 4), "the speed changes while paused, for when it resumes")
        #expect(clock.perform(.pause) == .running(speed: 4))
    }

    @Test func timeMovesAtEachSpeedInTurnAndStandsStillWhilePaused() async {
        let base = ManualClock()
        let clock = ScaledClock(speed: 4, base: base, unixTime: 1_000)
        let copy = clock
        await base.advance(by: .seconds(2))
        #expect(clock.now.offset == .seconds(8))
        copy.perform(.pause)
        await base.advance(by: .seconds(10))
        #expect(clock.now.offset == .seconds(8), "a copy shares the pace")
        #expect(clock.unixTime == 1_008)
        clock.perform(.pause)
        clock.perform(.faster)
        await base.advance(by: .seconds(1))
        #expect(clock.now.offset == .seconds(16))
    }

    /// The case: a warning due in an hour at 1x comes at its time after the switch to 3600x.
    @Test func aTimerPlannedAt1xFiresAtItsTimeAfterTheSwitchTo3600x() async {
        let timer = OneTimer(speed: 1, after: .seconds(3600))
        let (base, clock) = (timer.base, timer.clock)
        await base.advance(by: .seconds(600))
        #expect(timer.firedAt == nil)
        while clock.speed < 3600 { clock.perform(.faster) }
        // 3000 s of the call's time are left: 0.8334 s of the base clock at 3600x.
        await base.advance(by: .milliseconds(833))
        #expect(timer.firedAt == nil, "fired at \(String(describing: timer.firedAt)), before its time")
        await base.advance(by: .milliseconds(1))
        // At its deadline: the base wakes at the attosecond that reaches it.
        #expect(timer.firedAt.map { $0 >= .seconds(3600) && $0 < .seconds(3600) + .microseconds(1) } == true, "fired at \(String(describing: timer.firedAt))")
    }

    @Test func aPausedClockFiresNoTimerAndResumingGoesOnFromWhereItStood() async throws {
        let timer = OneTimer(speed: 60, after: .seconds(120))
        let (base, clock) = (timer.base, timer.clock)
        await base.advance(by: .seconds(1))
        clock.perform(.pause)
        await base.advance(by: .seconds(3600))
        #expect(timer.firedAt == nil, "an hour of the base clock passed while paused")
        #expect(clock.now.offset == .seconds(60))
        clock.perform(.pause)
        await base.advance(by: .milliseconds(999))
        #expect(timer.firedAt == nil)
        await base.advance(by: .milliseconds(1))
        #expect(timer.firedAt == .seconds(120))
    }

    /// What sleeps on the clock itself (not through a timer queue) is planned again at each change too.
    @Test func aSleeperNeverWakesWhilePausedAndWakesEarlierAfterASpeedUp() async throws {
        let base = ManualClock()
        let clock = ScaledClock(speed: 1, base: base, unixTime: 0)
        let woke = Mutex<Duration?>(nil)
        Task {
            try await clock.sleep(until: .init(offset: .seconds(3600)))
            woke.withLock { $0 = clock.now.offset }
        }
        #expect(await base.waitForSleepers())
        clock.perform(.pause)
        await base.advance(by: .seconds(7200))
        #expect(woke.withLock { $0 } == nil, "two hours of the base clock passed while paused")
        clock.perform(.pause)
        while clock.speed < 3600 { clock.perform(.faster) }
        #expect(await base.waitForSleepers())
        // Asleep on the base until 1 s from now, not until the hour it planned at 1x.
        await base.advance(by: .seconds(1))
        #expect(await eventually { woke.withLock { $0 } != nil })
        #expect(woke.withLock { $0 } == .seconds(3600))
    }

    /// The rule for a fast call's token exchanges: what the call waits for outside counts at 1×, not at its speed.
    @Test func aHoldCountsAtTheBasesPaceUntilReleasedThenTheSpeedIsBack() async {
        let base = ManualClock()
        let clock = ScaledClock(speed: 3600, base: base, unixTime: 0)
        await base.advance(by: .milliseconds(1))
        #expect(clock.now.offset == .milliseconds(3600))
        let hold = clock.hold(from: clock.now)
        await base.advance(by: .milliseconds(15))
        #expect(clock.now.offset == .milliseconds(3615), "a 15 ms exchange is 15 ms of the call's time, not 54 s")
        hold.release()
        hold.release()
        await base.advance(by: .milliseconds(1))
        #expect(clock.now.offset == .milliseconds(7215))
        #expect(clock.phase == .running(speed: 3600), "the speed a person chose is unchanged")
    }

    @Test func aHoldFromALaterInstantRunsFastUntilThereAndAtTheBasesPaceAfterUntilItsLastReferenceGoes() async {
        let base = ManualClock()
        let clock = ScaledClock(speed: 3600, base: base, unixTime: 0)
        var hold: ClockHold? = clock.hold(from: .init(offset: .seconds(36)))
        await base.advance(by: .milliseconds(5))
        #expect(clock.now.offset == .seconds(18))
        await base.advance(by: .milliseconds(10))
        #expect(clock.now.offset == .milliseconds(36_005), "36 s in 10 ms at 3600x, then 5 ms at 1x")
        #expect(hold != nil)
        hold = nil
        await base.advance(by: .milliseconds(1))
        #expect(clock.now.offset == .milliseconds(39_605))
    }

    /// A warning due while the main actor is busy: at 3600x each late millisecond would be 3.6 s of the call.
    @Test func aTimerHoldingTheClockComesAtMostTheRealDelayLateHoweverFastTheClock() async throws {
        let started = ContinuousClock.now
        let clock = ScaledClock(speed: 3600, unixTime: 0)
        let queue = TimerQueue(clock: clock)
        let firedAt = Mutex<(clock: Duration, real: Duration)?>(nil)
        queue.schedule(at: .seconds(36), holdingClock: true) { firedAt.withLock { $0 = (queue.now, ContinuousClock.now - started) } }
        // The main actor is busy from before the deadline (10 ms away) to 40 ms after it, and longer when other tests
        // hold it: however long, the timer is late by no more than that real time.
        let busyUntil = started + .milliseconds(50)
        while ContinuousClock.now < busyUntil {}
        #expect(firedAt.withLock { $0 } == nil)
        while firedAt.withLock({ $0 }) == nil { await Task.yield() }
        let fired = try #require(firedAt.withLock { $0 })
        #expect(fired.clock >= .seconds(36) && fired.clock - .seconds(36) <= fired.real,
                "fired at \(fired.clock) of the clock's time, \(fired.real) after it started: not 3600 times that late")
        await Task.yield()
        let after = clock.now.offset
        try await Task.sleep(for: .milliseconds(10))
        #expect(clock.now.offset - after >= .seconds(30), "once it has run, the clock runs at 3600x again")
    }

    @Test func aCancelledHoldingTimerLeavesTheClockAtItsSpeed() async {
        let base = ManualClock()
        let clock = ScaledClock(speed: 3600, base: base, unixTime: 0)
        let queue = TimerQueue(clock: clock)
        let timer = queue.schedule(at: .seconds(36), holdingClock: true) {}
        queue.cancel(timer)
        await base.advance(by: .milliseconds(20))
        #expect(clock.now.offset == .seconds(72))
    }

    @Test func aSleeperCancelledWhilePausedEnds() async {
        let base = ManualClock()
        let clock = ScaledClock(speed: 1, base: base, unixTime: 0)
        clock.perform(.pause)
        let sleeper = Task { try await clock.sleep(until: .init(offset: .seconds(1))) }
        await base.settle()
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}

/// One timer on a queue on a scaled clock over the manual clock, and when it fired, in the scaled clock's time.
@MainActor
private final class OneTimer {
    let base = ManualClock()
    let clock: ScaledClock
    private(set) var firedAt: Duration?
    private let queue: TimerQueue

    init(speed: Int, after delay: Duration) {
        clock = ScaledClock(speed: speed, base: base, unixTime: 0)
        queue = TimerQueue(clock: clock)
        queue.schedule(after: delay) { [unowned self] in firedAt = queue.now }
    }
}
