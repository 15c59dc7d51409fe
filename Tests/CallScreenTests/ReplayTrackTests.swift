import CallSession
import ChannelEngine
import Testing
@testable import CallScreen

@Suite struct ReplayTrackTests {
    @Test func theSpeedKeysWorkInACallAndAReplayAndTheCallKeysOnlyInACall() {
        let space = Int32(UInt8(ascii: " ")), less = Int32(UInt8(ascii: "<")), join = Int32(UInt8(ascii: "j"))
        for mode in [KeyBinding.Mode.call, .replay] {
            #expect(KeyCommand(key: space, in: mode) == .clock(.pause))
            #expect(KeyCommand(key: less, in: mode) == .clock(.slower))
            #expect(KeyCommand(key: Int32(UInt8(ascii: ".")), in: mode) == .clock(.faster))
        }
        #expect(KeyCommand(key: join, in: .replay) == .unknown("'j'"))
        #expect(KeyCommand(key: join, in: .call) == .session(.join))
        #expect(KeyCommand(key: Int32(UInt8(ascii: "q")), in: .replay) == .quit)
    }

    @Test func aTrackAppliesEachEventOnceItsTimeIsReachedAtItsUnixTime() {
        let events = [
            SessionEvent(time: .seconds(1), kind: .engine(.connectionStateChanged(.connected, reason: .reasonJoinSuccess))),
            SessionEvent(time: .seconds(3), kind: .engine(.simulatorNotice(.tokenAccepted(expiresAt: 1_000_040, short: false)))),
        ]
        var track = ReplayTrack(events: events, started: 1_000_000)
        var state = ScreenState(channel: "c", uid: 1, role: .broadcaster, tokenServer: "s", renewMethod: .renew, autoRenew: true)
        #expect(track.play(upTo: .milliseconds(999), into: &state) == 0)
        #expect(track.play(upTo: .seconds(2), into: &state) == 1)
        #expect(state.connection == .connected)
        #expect(track.nextTime == .seconds(3))
        #expect(track.play(upTo: .seconds(60), into: &state) == 1)
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
        var state = ScreenState(channel: "c", uid: 0, role: .broadcaster, tokenServer: "s", renewMethod: .renew, autoRenew: true)
        #expect(track.video(for: state).isEmpty, "nobody is in the channel yet")
        track.play(upTo: .seconds(5), into: &state)
        let video = track.video(for: state)
        #expect(Set(video.keys) == [7, 11, 12])
        #expect(video[7]?.isFrozen == false && video[11]?.isFrozen == false)
        #expect(video[12] == .synthetic(VideoFrameSource(uid: 12, frozenAt: .seconds(4))))
        track.play(upTo: .seconds(6), into: &state)
        #expect(Set(track.video(for: state).keys) == [7, 12], "a user who left has no video")
        state.role = .audience
        #expect(track.video(for: state)[7] == nil, "an audience member does not publish")
    }
}
