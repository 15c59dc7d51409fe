import Testing
import WebSocket
@testable import WebServer

/// A WebSocket connection's rules on the host (frames, pings, the closing handshake, the queue's limit, its times),
/// event by event, without a socket.
@Suite struct WebSocketPeerMachineTests {
    let start = ContinuousClock.now
    var limits: WebSocketLimits {
        var limits = WebSocketLimits(silenceLimit: .seconds(20))
        limits.sendTimeout = .seconds(5)
        limits.lingerTimeout = .seconds(2)
        limits.maxQueuedBytes = 1024
        return limits
    }

    /// A client's frame: masked, as RFC 6455 asks of every one.
    func fromClient(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> [UInt8] {
        WebSocketFrame.encode(opcode, payload, mask: (1, 2, 3, 4))
    }

    @Test func wholeMessagesAreDeliveredOneAtATimeAndAPingIsAnsweredWithItsPong() {
        var machine = WebSocketPeerMachine(now: start, limits: limits)
        let bytes = fromClient(.text, Array("hi".utf8)) + fromClient(.ping, [7]) + fromClient(.binary, [1, 2])
        #expect(machine.received(bytes, queued: 0, now: start) == [.deliver(.text("hi"))])
        #expect(machine.received([], queued: 0, now: start) == [.send(WebSocketFrame.encode(.pong, [7])), .deliver(.binary([1, 2]))])
        #expect(machine.received([], queued: 0, now: start) == [])
    }

    @Test func whatFollowsAMessageAfterWhichTheServiceClosedIsNotReadNorAnswered() {
        var machine = WebSocketPeerMachine(now: start, limits: limits)
        let bytes = fromClient(.text, Array("bye".utf8)) + fromClient(.ping, [7]) + fromClient(.text, Array("more".utf8))
        #expect(machine.received(bytes, queued: 0, now: start) == [.deliver(.text("bye"))])
        _ = machine.close(.policyViolation, reason: "", queued: 0, now: start)
        #expect(machine.received([], queued: 0, now: start) == [], "no pong after the close frame, no message after it")
    }

    @Test func aClientHeardFromStaysAndOneSilentForTheLimitIsLost() {
        var machine = WebSocketPeerMachine(now: start, limits: limits)
        _ = machine.received(fromClient(.pong, []), queued: 0, now: start + .seconds(15))
        #expect(machine.deadlinePassed(now: start + .seconds(20), queued: 0) == [])
        #expect(machine.deadline(queued: false) == start + .seconds(35))
        #expect(machine.deadlinePassed(now: start + .seconds(35), queued: 0) == [
            .log("lost: nothing heard for 20.0 seconds"), .tell(.silent(.seconds(20))), .drop])
        #expect(machine.phase == .closed)
    }

    @Test func bytesThatTrickleInWithoutFinishingAFrameKeepNobodyIn() {
        var machine = WebSocketPeerMachine(now: start, limits: limits)
        let frame = fromClient(.binary, [UInt8](repeating: 1, count: 100))
        for (index, byte) in frame.dropLast().enumerated() {
            #expect(machine.received([byte], queued: 0, now: start + .seconds(index / 5)) == [])
        }
        #expect(machine.deadline(queued: false) == start + .seconds(20))
    }

    @Test func waitingBytesTheClientTakesNoneOfForTheSendTimeoutDropItAsTooSlow() {
        var machine = WebSocketPeerMachine(now: start, limits: limits)
        #expect(machine.send([1], queued: 0, now: start + .seconds(2)) == [.send([1])])
        #expect(machine.send([2], queued: 1, now: start + .seconds(4)) == [.send([2])])
        #expect(machine.deadline(queued: true) == start + .seconds(7), "from when waiting began, not the last frame queued")
        #expect(machine.sent(allOut: false, progressed: true, now: start + .seconds(6)) == [])
        #expect(machine.deadlinePassed(now: start + .seconds(7), queued: 1) == [])
        #expect(machine.deadlinePassed(now: start + .seconds(11), queued: 1) == [
            .log("dropped: it took nothing of 1 waiting bytes for 5.0 seconds"), .tell(.closedByHost(.policyViolation)), .drop])
    }

    @Test func aFrameOverTheQueuesLimitDropsTheClientAsTooSlowAReader() {
        var machine = WebSocketPeerMachine(now: start, limits: limits)
        #expect(machine.send([UInt8](repeating: 0, count: 24), queued: 1000, now: start).count == 1)
        #expect(machine.send([UInt8](repeating: 0, count: 25), queued: 1000, now: start) == [
            .log("dropped: 1000 bytes wait for it, over the limit of 1024; too slow a reader"),
            .tell(.closedByHost(.policyViolation)), .drop])
        #expect(machine.send([1], queued: 0, now: start) == [], "nothing more for a client that is gone")
    }

    @Test func aClientsCloseIsAnsweredWithItsCodeThenTheHostHalfClosesAndLingers() {
        var machine = WebSocketPeerMachine(now: start, limits: limits)
        let close = WebSocketFrame.close(.goingAway, reason: "bye", mask: (1, 2, 3, 4))
        #expect(machine.received(close + fromClient(.text, Array("late".utf8)), queued: 0, now: start) == [
            .send(WebSocketFrame.close(.goingAway, reason: "")), .tell(.closedByClient(.goingAway))])
        #expect(machine.received(fromClient(.text, Array("later".utf8)), queued: 0, now: start) == [], "closing: dropped")
        #expect(machine.sent(allOut: true, progressed: true, now: start + .seconds(1)) == [.halfClose])
        #expect(machine.phase == .lingering(until: start + .seconds(3)))
        #expect(machine.deadlinePassed(now: start + .seconds(2), queued: 0) == [])
        #expect(machine.deadlinePassed(now: start + .seconds(3), queued: 0) == [.drop])
    }

    @Test func aCloseWithoutACodeIsAnsweredWithNormal() {
        var machine = WebSocketPeerMachine(now: start, limits: limits)
        #expect(machine.received(fromClient(.close, []), queued: 0, now: start) == [
            .send(WebSocketFrame.close(.normal, reason: "")), .tell(.closedByClient(.noStatus))])
    }

    @Test func aBrokenFrameIsClosedWithItsCodeAndALogLine() {
        var machine = WebSocketPeerMachine(now: start, limits: limits)
        let actions = machine.received(WebSocketFrame.encode(.text, Array("hi".utf8)), queued: 0, now: start)
        guard case .log(let line) = actions.first, case .send(let frame) = actions.dropFirst().first else {
            Issue.record("no log line and close frame: \(actions)")
            return
        }
        #expect(line.hasPrefix("closed 1002: "))
        #expect(frame.prefix(4) == [0x88, UInt8(frame.count - 2), 0x03, 0xEA])
        #expect(actions.last == .tell(.closedByHost(.protocolError)))
        #expect(!machine.isOpen)
    }

    @Test func theServicesCloseLeavesOutTheFrameWhenTheQueueHasNoRoomForIt() {
        var machine = WebSocketPeerMachine(now: start, limits: limits)
        #expect(machine.close(.policyViolation, reason: "", queued: 1000, now: start) == [.tell(.closedByHost(.policyViolation))])
        #expect(machine.close(.normal, reason: "", queued: 0, now: start) == [], "once")
    }

    @Test func aClosingClientThatNeverTakesTheCloseFrameIsEndedAtTheSendTimeout() {
        var machine = WebSocketPeerMachine(now: start, limits: limits)
        _ = machine.close(.normal, reason: "", queued: 0, now: start)
        #expect(machine.deadlinePassed(now: start + .seconds(5), queued: 4) == [.drop])
    }

    @Test func theConnectionEndingWithoutACloseFrameIsLostAndAfterOneIsNot() {
        var open = WebSocketPeerMachine(now: start, limits: limits)
        #expect(open.ended() == [.log("lost: the connection closed without a close frame"), .tell(.lost), .drop])
        var closing = WebSocketPeerMachine(now: start, limits: limits)
        _ = closing.close(.normal, reason: "", queued: 0, now: start)
        #expect(closing.ended() == [.drop])
        #expect(closing.ended() == [], "once")
    }

    @Test func anEvictedClientHearsWhyAndIsClosedAtOnce() {
        var machine = WebSocketPeerMachine(now: start, limits: limits)
        let reason = "the server is full, and this connection had not proven itself (joined); connect again"
        #expect(machine.evict(queued: 0) == [
            .log("closed 1008: \(reason)"), .sendLast(WebSocketFrame.close(.policyViolation, reason: reason)),
            .tell(.closedByHost(.policyViolation)), .drop])
        var full = WebSocketPeerMachine(now: start, limits: limits)
        #expect(full.evict(queued: 1000).contains(.sendLast([])), "no room: no frame")
    }

    @Test func stoppingClosesAnOpenClientWith1001() {
        var machine = WebSocketPeerMachine(now: start, limits: limits)
        #expect(machine.stopping() == [
            .sendLast(WebSocketFrame.close(.goingAway, reason: "the server is stopping")), .tell(.closedByHost(.goingAway)), .drop])
        var closing = WebSocketPeerMachine(now: start, limits: limits)
        _ = closing.close(.normal, reason: "", queued: 0, now: start)
        #expect(closing.stopping() == [.sendLast([]), .drop], "its close frame went already: flushed, not told twice")
    }
}
