import CallSession
import ChannelEngine
import Testing
@testable import CallScreen

@Suite struct ReplayTrackTests {
    @Test func theSpeedKeysWorkInACallAndAReplayAndTheCallKeysOnlyInACall() {
        for mode in [KeyBinding.Mode.call, .replay] {
            #expect(KeyCommand(key: .character(" "), in: mode) == .clock(.pause))
            #expect(KeyCommand(key: .character("<"), in: mode) == .clock(.slower))
            #expect(KeyCommand(key: .character("."), in: mode) == .clock(.faster))
        }
        #expect(KeyCommand(key: .character("j"), in: .replay) == .unknown("'j'"))
        #expect(KeyCommand(key: .character("j"), in: .call) == .session(.join))
        #expect(KeyCommand(key: .character("q"), in: .replay) == .quit)
    }

    /// A replay's keys yield only clock changes and quit; a call's key does nothing there, not even a log line.
    @Test func aReplaysKeysChangeItsClockAndNothingElse() {
        var state = ScreenState(call: CallSettings(channel: "c", uid: 1, role: .broadcaster, tokenServer: "s", renewMethod: .renew, autoRenew: true),
                                mode: .replay(ended: false), clock: .running(speed: 4))
        #expect(state.type(">") == [.clock(.faster)])
        #expect(state.type(" ") == [.clock(.pause)])
        #expect(state.type("j") == [])
        #expect(state.type("p") == [] && state.paste == .closed)
        #expect(state.log.entries.isEmpty)
        state.tick(unixTime: 0, clock: .paused(speed: 8))
        let header = { (state: ScreenState) in
            ScreenRenderer.render(state, width: 80, height: 24, options: RenderOptions(colors: 0, unicode: false), video: { _ in nil },
                                  at: .zero).lines[0]
        }
        #expect(header(state).hasPrefix(" tokencall replay 8x paused |"))
        _ = state.update(.recordingEnded)
        state.tick(unixTime: 0, clock: .running(speed: 8))
        #expect(header(state).hasPrefix(" tokencall replay ended |"), "the end stays whatever the clock does")
    }

    @Test func aTrackAppliesEachEventOnceItsTimeIsReachedAtItsUnixTime() {
        let events = [
            SessionEvent(time: .seconds(1), kind: .engine(.connectionStateChanged(.connected, reason: .reasonJoinSuccess))),
            SessionEvent(time: .seconds(3), kind: .engine(.simulatorNotice(.tokenAccepted(expiresAt: 1_000_040, short: false)))),
        ]
        var track = ReplayTrack(events: events, started: 1_000_000)
        var state = ScreenState(call: CallSettings(channel: "c", uid: 1, role: .broadcaster, tokenServer: "s", renewMethod: .renew, autoRenew: true))
        #expect(track.take(upTo: .milliseconds(999)).isEmpty)
        let first = track.take(upTo: .seconds(2))
        #expect(first == [.event(events[0], unixTime: 1_000_001)])
        for message in first { _ = state.update(message) }
        #expect(state.connection == .connected)
        #expect(track.nextTime == .seconds(3))
        let second = track.take(upTo: .seconds(60))
        #expect(second.count == 1)
        for message in second { _ = state.update(message) }
        #expect(state.tokenAcceptedAt == 1_000_003, "the token was taken 3 s after the recorded start")
        #expect(track.nextTime == nil)
        #expect(track.end == .seconds(3))
    }

    @Test func theVideoIsDrawnAgainForWhoIsThereFrozenWhereTheRecordingSaysSo() {
        let events = [
            SessionEvent(time: .seconds(1), kind: .engine(.connectionStateChanged(.connected, reason: .reasonJoinSuccess))),
            SessionEvent(time: .seconds(1), kind: .engine(.didJoinChannel(channel: "c", uid: 7, elapsed: 1))),
            SessionEvent(time: .seconds(2), kind: .engine(.didJoinedOfUid(11, elapsed: 1))),
            SessionEvent(time: .seconds(2), kind: .engine(.didJoinedOfUid(12, elapsed: 1))),
            SessionEvent(time: .seconds(4), kind: .engine(.remoteVideoStateChanged(uid: 12, state: .frozen, reason: .congestion, elapsed: 1))),
            SessionEvent(time: .seconds(6), kind: .engine(.didOfflineOfUid(11, reason: .quit))),
        ]
        var track = ReplayTrack(events: events, started: 1_000_000)
        var state = ScreenState(call: CallSettings(channel: "c", uid: 0, role: .broadcaster, tokenServer: "s", renewMethod: .renew, autoRenew: true))
        #expect(track.video(for: state).isEmpty, "nobody is in the channel yet")
        for message in track.take(upTo: .seconds(5)) { _ = state.update(message) }
        let video = track.video(for: state)
        #expect(Set(video.keys) == [7, 11, 12])
        #expect(video[7]?.isFrozen == false && video[11]?.isFrozen == false)
        #expect(video[12] == .synthetic(VideoFrameSource(uid: 12, frozenAt: .seconds(4))))
        for message in track.take(upTo: .seconds(6)) { _ = state.update(message) }
        #expect(Set(track.video(for: state).keys) == [7, 12], "a user who left has no video")
        state.take(SessionEvent(time: .seconds(7), kind: .engine(.didClientRoleChanged(old: .broadcaster, new: .audience))))
        #expect(track.video(for: state)[7] == nil, "an audience member does not publish")
    }
}
