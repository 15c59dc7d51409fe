import CallScreen
import ChannelEngine
import TestSupport
import Testing
@testable import CallSession

/// The session drives the engine as a guide app does: its delegate, canvases for the tiles, the header's callbacks.
@MainActor
@Suite(.serialized) struct EngineAPITests {
    private func joined(remoteUsers: Int, _ adjust: (inout CallSession.Configuration) -> Void = { _ in }) async -> SessionHarness {
        let h = SessionHarness { config in
            config.remoteUsers = remoteUsers
            adjust(&config)
        }
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 5)
        return h
    }

    @Test func canvasesFollowTheUsersAndALeavingUserLosesTheirs() async throws {
        let h = await joined(remoteUsers: 2)
        let engine = try #require(h.session.engine)
        #expect(engine.delegate === h.session)
        #expect(engine.videoCanvas(forUid: 0)?.view === h.session.localTile)
        let remotes = engine.remoteUids
        #expect(remotes.count == 2)
        for uid in remotes {
            #expect(engine.videoCanvas(forUid: uid)?.view === h.session.remoteTiles[uid])
            #expect(h.session.video(forUid: uid) != nil)
        }
        h.session.removeRemoteUser()
        await h.run(for: 1)
        let gone = try #require(remotes.first { !engine.remoteUids.contains($0) })
        #expect(engine.videoCanvas(forUid: gone) == nil)
        #expect(h.session.remoteTiles[gone] == nil)
        #expect(h.session.video(forUid: gone) == nil)
        h.session.leave()
        await h.run(for: 1)
        #expect(h.session.remoteTiles.isEmpty)
        #expect(remotes.allSatisfy { engine.videoCanvas(forUid: $0) == nil })
        #expect(engine.videoCanvas(forUid: 0)?.view === h.session.localTile, "the local canvas stays for the next join")
        await h.stop()
    }

    /// `didLeaveChannelWith` carries statistics only; the session names the connection it left, even when the renewal
    /// joins again (with the uid the engine gave, which it keeps) before the leave is answered.
    @Test func aRenewalByRejoiningLeavesAsTheOldUid() async throws {
        let h = await joined(remoteUsers: 0)
        let first = try #require(h.session.engine?.connection?.localUid)
        h.session.setRenewMethod(.rejoin)
        h.session.renewNow()
        await h.settle(until: { h.count("tokenFetched") == 2 })
        await h.run(for: 2)
        let second = try #require(h.session.engine?.connection?.localUid)
        #expect(second == first, "a join with uid 0 keeps the uid it was given")
        let left = h.events.compactMap { if case .engine(.didLeaveChannel(_, let uid, _)) = $0.kind { uid } else { nil } }
        #expect(left == [UInt(first)])
        await h.stop()
    }

    @Test func qualityAndTheActiveSpeakerReachTheStreamAndTheScreen() async throws {
        let h = await joined(remoteUsers: 2)
        await h.run(for: 20)
        let engine = try #require(h.session.engine)
        var state = ScreenState(call: CallSettings(channel: "test", uid: 0, role: .broadcaster, tokenServer: "local", renewMethod: .renew, autoRenew: true))
        for event in h.events { _ = state.update(.event(event, unixTime: 0)) }
        let qualityUids = Set(h.events.compactMap { if case .engine(.networkQuality(let uid, _, _)) = $0.kind { uid } else { nil } })
        #expect(qualityUids == Set([0] + engine.remoteUids))
        #expect(state.localQuality != nil)
        #expect(state.visibleRemotes.count == 2 && state.visibleRemotes.allSatisfy { $0.quality != nil })
        let speaker = try #require(state.activeSpeaker)
        #expect(engine.remoteUids.contains(speaker))
        #expect(h.count("activeSpeaker") >= 1)
        let logged = Set(state.log.entries.map(\.name))
        for name in ["networkQuality", "activeSpeaker", "reportRtcStats", "reportAudioVolumeIndicationOfSpeakers"] {
            #expect(!logged.contains(name), "\(name) is on the tiles, not in the log")
        }
        await h.stop()
    }

    /// Over a minute the engine reports each user's quality 30 times; headless output prints only the changes, and
    /// none of the periodic reports.
    @Test func headlessOutputDoesNotFlood() async throws {
        let h = await joined(remoteUsers: 2)
        let engine = try #require(h.session.engine)
        var reported: [(uid: UInt, tx: AgoraNetworkQuality, rx: AgoraNetworkQuality)] = []
        engine.observer = { if case .networkQuality(let uid, let tx, let rx) = $0 { reported.append((uid, tx, rx)) } }
        let before = h.events.count
        await h.run(for: 60, step: 1)
        let minute = h.events.dropFirst(before)
        let printed = minute.filter { !$0.isPeriodic }
        var last: [UInt: (AgoraNetworkQuality, AgoraNetworkQuality)] = [:]
        for event in h.events.prefix(before) {
            if case .engine(.networkQuality(let uid, let tx, let rx)) = event.kind { last[uid] = (tx, rx) }
        }
        let changes = reported.filter { report in
            defer { last[report.uid] = (report.tx, report.rx) }
            return last[report.uid].map { $0 != (report.tx, report.rx) } ?? true
        }
        #expect(reported.count == 90)
        #expect(printed.filter { $0.name == "networkQuality" }.count == changes.count)
        #expect(changes.count <= 30, "\(changes.count) quality changes in a minute")
        #expect(minute.filter { $0.name == "reportRtcStats" }.count == 30)
        #expect(!printed.contains { $0.name == "reportRtcStats" || $0.name == "reportAudioVolumeIndicationOfSpeakers" })
        #expect(printed.count < 80, "\(printed.count) headless lines in a minute")
        await h.stop()
    }

    @Test func theSharedEngineIsTheSessionsAndIsDestroyedWhenItEnds() async throws {
        let h = await joined(remoteUsers: 0) { $0.engine = .shared }
        let engine = try #require(h.session.engine)
        #expect(AgoraRtcEngineKit.sharedEngine(with: AgoraRtcEngineConfig(), delegate: h.session) === engine)
        await h.stop()
        #expect(h.events.last?.kind == .sessionEnded(failed: false))
        let next = AgoraRtcEngineKit.sharedEngine(with: AgoraRtcEngineConfig(), delegate: nil)
        #expect(next !== engine)
        AgoraRtcEngineKit.destroy()
    }
}
