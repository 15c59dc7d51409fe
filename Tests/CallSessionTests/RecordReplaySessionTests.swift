import CallScreen
import CallSession
import Foundation
import Recording
import Testing

@MainActor
@Suite struct RecordReplaySessionTests {
    /// A call recorded as `join --record` records it, read back and replayed, leaves the screen as the live call did.
    @Test func aReplayedRecordingLeavesTheScreenAsTheLiveCallDid() async throws {
        let h = SessionHarness { $0.remoteUsers = 3; $0.seed = 11 }
        let config = h.session.configuration
        let blank = ScreenState(channel: config.channel, uid: config.uid, role: config.role, tokenServer: h.session.tokens.label,
                                renewMethod: config.renewMethod, autoRenew: config.autoRenew)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokencall-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let header = RecordingHeader(options: ["seed": "11"], seed: 11, started: config.unixTime(),
                                     call: .init(channel: config.channel, uid: config.uid, role: config.role, tokenServer: h.session.tokens.label,
                                                 renewMethod: config.renewMethod, autoRenew: config.autoRenew))
        let recorder = try Recorder(path: path, header: header)
        var live = blank
        let collect = h.session.onEvent
        h.session.onEvent = { event in
            collect?(event)
            recorder.record(event)
            live.now = config.unixTime()
            live.apply(event)
        }
        h.session.start()
        await h.run(for: 95)
        h.session.setRenewMethod(.update)
        h.session.expireNow()
        await h.run(for: 5)
        await h.stop()
        #expect(recorder.failure == nil)
        #expect(h.count("tokenRenewed") >= 2 && h.count("didJoinedOfUid") >= 3)

        let recording = try Recording.read(path: path)
        #expect(recording.header == header)
        #expect(recording.events.map(\.jsonLine) == h.events.map(\.jsonLine))
        var replayed = blank
        var track = ReplayTrack(events: recording.events, started: recording.header.started)
        #expect(track.play(upTo: track.end, into: &replayed) == h.events.count)
        #expect(replayed == live)
        #expect(replayed.tokenAcceptedAt != nil || replayed.connection == .disconnected)
        #expect(replayed.log.contains { $0.detail == "renew method update" })
    }
}
