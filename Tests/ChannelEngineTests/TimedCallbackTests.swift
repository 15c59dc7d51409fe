@testable import ChannelEngine
import Testing

@MainActor
@Suite struct TimedCallbackTests {
    @Test func statsAndQualityEveryTwoSecondsInAChannelAndNoneAfterLeaving() async {
        let h = Harness()
        await h.join()
        h.recorder.clear()
        await h.advance(10)
        #expect(h.recorder.times(of: "reportRtcStats") == [2, 4, 6, 8, 10].map { .milliseconds(250) + .seconds($0) })
        #expect(h.recorder.times(of: "networkQuality") == h.recorder.times(of: "reportRtcStats"))
        let stats = h.recorder.events.compactMap { if case .reportRtcStats(let stats) = $0 { stats } else { nil } }
        #expect(stats.map(\.duration) == [2, 4, 6, 8, 10])
        #expect(stats.allSatisfy { $0.userCount == 1 })
        h.engine.leaveChannel()
        await h.settle()
        h.recorder.clear()
        await h.advance(10)
        #expect(h.recorder.count("reportRtcStats") == 0)
        #expect(h.recorder.count("networkQuality") == 0)
    }

    @Test func qualityPerUserWithUidZeroForTheLocalUserAndWorseWhileInterrupted() async {
        let h = Harness(remoteUsers: 2)
        await h.join()
        await h.advance(5)
        let peers = h.engine.remoteUids
        #expect(peers.count == 2)
        h.recorder.clear()
        await h.advance(2)
        let up = qualities(h.recorder.events)
        #expect(up.map(\.uid) == [0] + peers)
        #expect(up.allSatisfy { $0.tx.rawValue <= AgoraNetworkQuality.poor.rawValue && $0.tx != .unknown })
        h.engine.simulateNetworkInterruption(true)
        h.recorder.clear()
        await h.advance(2)
        let down = qualities(h.recorder.events)
        #expect(down.first?.uid == 0)
        #expect(down.first?.tx == .down && down.first?.rx == .down)
        #expect(down.allSatisfy { $0.tx.rawValue >= AgoraNetworkQuality.bad.rawValue })
    }

    @Test func volumeReportsAtTheIntervalUntilDisabled() async {
        let h = Harness(remoteUsers: 2)
        await h.join()
        h.recorder.clear()
        h.engine.enableAudioVolumeIndication(200, smooth: 3, reportVad: true)
        await h.advance(1)
        let start = Duration.seconds(1)
        #expect(h.recorder.times(of: "reportAudioVolumeIndicationOfSpeakers")
            == (1...5).map { start + .milliseconds(200 * $0) })
        h.engine.enableAudioVolumeIndication(0, smooth: 3, reportVad: true)
        await h.settle()
        h.recorder.clear()
        await h.advance(2)
        #expect(h.recorder.count("reportAudioVolumeIndicationOfSpeakers") == 0)
        #expect(h.recorder.count("activeSpeaker") == 0)
    }

    @Test func activeSpeakerOnlyWhenTheLoudestRemoteUserChanges() async {
        let h = Harness(remoteUsers: 3)
        await h.join()
        await h.advance(5)
        h.engine.enableAudioVolumeIndication(100, smooth: 3, reportVad: false)
        await h.advance(10)
        var previous: UInt?
        var changes = 0
        for event in h.recorder.events {
            if case .reportAudioVolumeIndication(let speakers, _) = event {
                let loudest = speakers.dropFirst().max { $0.volume < $1.volume }?.uid
                if loudest != previous { changes += 1 }
                previous = loudest
            }
            if case .activeSpeaker(let uid) = event { #expect(uid == previous) }
        }
        #expect(changes > 1)
        #expect(h.recorder.count("activeSpeaker") == changes)
        let speakers = h.recorder.events.compactMap { if case .activeSpeaker(let uid) = $0 { uid } else { nil } }
        #expect(zip(speakers, speakers.dropFirst()).allSatisfy { $0 != $1 })
    }

    @Test func remoteVideoStartsDecodesFreezesAndStopsWhenALinkGoesQuiet() async throws {
        let h = Harness(remoteUsers: 0)
        await h.join()
        let uid = try #require(h.engine.simulateRemoteUserJoin())
        await h.advance(1)
        h.engine.locked { h.engine.worlds["test"]?.silence(uid) }
        await h.advance(21)
        let states = h.recorder.events.compactMap { event -> AgoraVideoRemoteState? in
            if case .remoteVideoStateChanged(uid, let state, _, _) = event { state } else { nil }
        }
        #expect(states == [.starting, .decoding, .frozen, .stopped])
    }

    @Test func interruptedAtFourSecondsAndLostAtTenOfAnOutage() async {
        let h = Harness()
        await h.join()
        h.recorder.clear()
        h.engine.simulateNetworkInterruption(true)
        await h.advance(12)
        let start = Duration.milliseconds(1000)
        #expect(h.recorder.times(of: "connectionDidInterrupted") == [start + AgoraRtcEngineKit.interruptedAfter])
        #expect(h.recorder.times(of: "connectionDidLost") == [start + AgoraRtcEngineKit.lostAfter])
    }

    @Test func aBanIsReported() async {
        let h = Harness()
        await h.join()
        h.engine.simulateBan()
        await h.settle()
        #expect(h.recorder.events.suffix(2) == [.connectionStateChanged(.failed, reason: .reasonBannedByServer), .connectionBanned])
        h.recorder.clear()
        await h.advance(4)
        #expect(h.recorder.count("reportRtcStats") == 0)
    }

    @Test func theSeedGivesTheSameSequenceTwice() async {
        func run(seed: UInt64) async -> [AgoraRtcEvent] {
            let h = Harness(remoteUsers: 3, seed: seed)
            await h.join()
            h.engine.enableAudioVolumeIndication(300, smooth: 3, reportVad: true)
            await h.advance(20)
            return h.recorder.events
        }
        let first = await run(seed: 11)
        #expect(first == (await run(seed: 11)))
        #expect(first != (await run(seed: 12)))
    }

    @Test func setClientRoleTakesTheSDKsOptions() async {
        let h = Harness()
        await h.join()
        #expect(h.engine.setClientRole(.audience, options: AgoraClientRoleOptions()) == 0)
        await h.settle()
        // The options come back with the change, as `newRoleOptions` (their default level: ultra-low latency).
        #expect(h.recorder.events.contains(.didClientRoleChanged(old: .broadcaster, new: .audience, latency: .ultraLowLatency)))
    }

    private func qualities(_ events: [AgoraRtcEvent]) -> [(uid: UInt, tx: AgoraNetworkQuality, rx: AgoraNetworkQuality)] {
        events.compactMap { if case .networkQuality(let uid, let tx, let rx) = $0 { (uid, tx, rx) } else { nil } }
    }
}
