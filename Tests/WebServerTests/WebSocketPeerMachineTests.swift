import Testing
@testable import WebServer

/// A WebSocket connection's timing rules on the host, event by event, without a socket.
@Suite struct WebSocketPeerMachineTests {
    let start = ContinuousClock.now
    var limits: WebSocketLimits {
        var limits = WebSocketLimits(silenceLimit: .seconds(20))
        limits.sendTimeout = .seconds(5)
        limits.lingerTimeout = .seconds(2)
        return limits
    }

    @Test func aClientHeardFromStaysAndOneSilentForTheLimitIsLost() {
        var machine = WebSocketPeerMachine(now: start, limits: limits)
        machine.heard(now: start + .seconds(15))
        #expect(machine.deadlinePassed(now: start + .seconds(20), queued: false) == .wait(until: start + .seconds(35)))
        #expect(machine.deadlinePassed(now: start + .seconds(35), queued: false) == .end(.silent))
        #expect(machine.phase == .closed)
    }

    @Test func waitingBytesTheClientTakesNoneOfForTheSendTimeoutDropItAsTooSlow() {
        var machine = WebSocketPeerMachine(now: start, limits: limits)
        machine.heard(now: start + .seconds(1))
        machine.queued(now: start + .seconds(2), wasEmpty: true)
        machine.queued(now: start + .seconds(4), wasEmpty: false)
        #expect(machine.deadline(queued: true) == start + .seconds(7), "from when waiting began, not the last frame queued")
        machine.progressed(now: start + .seconds(6))
        #expect(machine.deadlinePassed(now: start + .seconds(7), queued: true) == .wait(until: start + .seconds(11)))
        #expect(machine.deadlinePassed(now: start + .seconds(11), queued: true) == .end(.tooSlow))
    }

    @Test func closingHalfClosesOnceTheQueueIsOutThenLingersForItsTimeout() {
        var machine = WebSocketPeerMachine(now: start, limits: limits)
        #expect(machine.queueEmptied(now: start) == .wait(until: start + .seconds(20)), "open: nothing to close")
        machine.closing()
        #expect(!machine.isOpen)
        #expect(machine.queueEmptied(now: start + .seconds(1)) == .halfClose(until: start + .seconds(3)))
        #expect(machine.phase == .lingering(until: start + .seconds(3)))
        #expect(machine.deadlinePassed(now: start + .seconds(2), queued: false) == .wait(until: start + .seconds(3)))
        #expect(machine.deadlinePassed(now: start + .seconds(3), queued: false) == .end(.closingOver))
    }

    @Test func aClosingClientThatNeverTakesTheCloseFrameIsEndedAtTheSendTimeout() {
        var machine = WebSocketPeerMachine(now: start, limits: limits)
        machine.queued(now: start, wasEmpty: true)
        machine.closing()
        #expect(machine.deadlinePassed(now: start + .seconds(5), queued: true) == .end(.closingOver))
    }
}
