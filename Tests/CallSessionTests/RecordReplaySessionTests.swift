import CallScreen
import CallSession
import Foundation
import OutputFiles
import Recording
import Testing

@MainActor
@Suite struct RecordReplaySessionTests {
    /// The recording's header and the live screen start from the same settings of the call, an account's included.
    @Test func theHeaderAndTheScreenShowTheCallsOneSettings() {
        let h = SessionHarness { $0.user = .account("alice"); $0.renewMethod = .rejoin; $0.autoRenew = false }
        let header = RecordingHeader(options: [:], of: h.session)
        #expect(header.call == CallSettings(channel: h.session.configuration.channel, uid: 0, account: "alice", role: .broadcaster,
                                            tokenServer: h.session.tokens.label, renewMethod: .rejoin, autoRenew: false))
        #expect(ScreenState(for: h.session).call == header.call)
    }

    /// A call recorded as `join --record` records it, read back and replayed, leaves the screen as the live call did.
    @Test func aReplayedRecordingLeavesTheScreenAsTheLiveCallDid() async throws {
        let h = SessionHarness { $0.remoteUsers = 3; $0.seed = 11 }
        let config = h.session.configuration
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokencall-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let header = RecordingHeader(options: ["seed": "11"], of: h.session)
        let recorder = Recorder(file: try OutputFile(path: path, overwrite: false), header: header)
        let blank = ScreenState(call: header.call)
        var live = blank
        var liveAfter: [ScreenState] = []  // the live state after each event
        h.session.observe(recorder.record)
        h.session.observe { event in
            _ = live.update(.event(event, unixTime: config.unixTime()))
            liveAfter.append(live)
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
        var applied = 0
        while let next = track.nextTime {
            for message in track.take(upTo: next) {
                _ = replayed.update(message)
                applied += 1
            }
            #expect(replayed == liveAfter[applied - 1], "after \(applied) events, at \(next)")
        }
        #expect(applied == h.events.count)
        #expect(replayed == live)
        #expect(replayed.tokenAcceptedAt != nil || replayed.connection == .disconnected)
        #expect(replayed.log.entries.contains { $0.detail == "renew method update" })
    }
}
