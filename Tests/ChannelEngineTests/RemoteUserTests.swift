@testable import ChannelEngine
import Testing

@MainActor
@Suite struct RemoteUserTests {
    private func joinedUids(_ h: Harness) -> [UInt] {
        h.recorder.events.compactMap { if case .didJoinedOfUid(let uid, _) = $0 { uid } else { nil } }
    }

    @Test func peersArriveAtStaggeredTimesAndPublishVideo() async {
        let h = Harness(remoteUsers: 3)
        await h.join()
        await h.advance(10)
        let arrivals = h.recorder.times(of: "didJoinedOfUid")
        #expect(arrivals.count == 3)
        #expect(arrivals == arrivals.sorted() && Set(arrivals).count == 3)
        #expect(arrivals.first! >= .milliseconds(600))
        #expect(h.recorder.count("firstRemoteVideoFrame") == 3)
        #expect(h.engine.remoteUids == joinedUids(h))
        for uid in h.engine.remoteUids { #expect(h.engine.videoSource(forUid: uid) != nil) }
    }

    @Test func everythingFollowsFromTheSeed() async {
        func run(seed: UInt64) async -> [AgoraRtcEvent] {
            let h = Harness(remoteUsers: 3, churn: true, seed: seed)
            await h.join()
            await h.advance(1800)
            return h.recorder.events
        }
        let first = await run(seed: 11)
        #expect(await run(seed: 11) == first)
        #expect(await run(seed: 12) != first)
    }

    @Test func withChurnPeersQuitDropAndComeBack() async {
        let h = Harness(remoteUsers: 4, churn: true, seed: 3, profile: .communication)
        await h.join()
        await h.advance(3 * 3600)
        let offline = h.recorder.events.compactMap { if case .didOfflineOfUid(_, let reason) = $0 { reason } else { nil } }
        #expect(offline.contains(.quit))
        #expect(offline.contains(.dropped))
        #expect(h.recorder.count("didJoinedOfUid") > 4)
    }

    @Test func aDroppingPeerFreezesThenGoesOffline20SecondsLater() async {
        let h = Harness(remoteUsers: 4, churn: true, seed: 3, profile: .communication)
        await h.join()
        var firstFreeze: (uid: UInt, at: Duration)?
        while firstFreeze == nil, h.engine.now < .seconds(3 * 3600) {
            await h.advance(1)
            firstFreeze = h.engine.remoteUids.lazy.compactMap { uid in
                h.engine.videoSource(forUid: uid)?.frozenAt.map { (uid, $0) }
            }.first
        }
        guard let (uid, frozenAt) = firstFreeze else {
            Issue.record("no peer dropped in three hours")
            return
        }
        await h.advance(30)
        let offlineAt = h.recorder.log.first { $0.at > frozenAt && $0.event == .didOfflineOfUid(uid, reason: .dropped) }?.at
        #expect(offlineAt.map { $0 - frozenAt } == .seconds(20))
    }

    @Test func liveBroadcastingAnnouncesOnlyHosts() async {
        let live = Harness(remoteUsers: 4, profile: .liveBroadcasting)
        await live.join()
        await live.advance(20)
        #expect(live.recorder.count("didJoinedOfUid") == 3)
        let communication = Harness(remoteUsers: 4, profile: .communication)
        await communication.join()
        await communication.advance(20)
        #expect(communication.recorder.count("didJoinedOfUid") == 4)
    }

    @Test func peersCanBeAddedAndRemovedOnRequest() async throws {
        let h = Harness(remoteUsers: 0)
        #expect(h.engine.simulateRemoteUserJoin() == nil)
        await h.join()
        let uid = try #require(h.engine.simulateRemoteUserJoin())
        await h.settle()
        #expect(h.recorder.events.suffix(2) == [.didJoinedOfUid(uid, elapsed: 1000),
                                                .remoteVideoStateChanged(uid: uid, state: .starting, reason: .internal, elapsed: 1000)])
        await h.advance(1)
        #expect(h.recorder.count("firstRemoteVideoFrame") == 1)
        #expect(h.engine.simulateRemoteUserLeave() == uid)
        await h.settle()
        #expect(h.recorder.events.suffix(2) == [.didOfflineOfUid(uid, reason: .quit),
                                                .remoteVideoStateChanged(uid: uid, state: .stopped, reason: .remoteOffline, elapsed: 2000)])
        #expect(h.engine.remoteUids.isEmpty)
        #expect(h.engine.simulateRemoteUserLeave() == nil)
    }

    @Test func anAudienceMemberPublishesNothing() async {
        let h = Harness()
        h.engine.enableVideo()
        h.engine.startPreview()
        #expect(h.engine.videoSource(forUid: 42) == nil)
        await h.join()
        #expect(h.engine.videoSource(forUid: 42) != nil)
        h.recorder.clear()
        #expect(h.engine.setClientRole(.audience) == 0)
        await h.settle()
        #expect(h.recorder.events == [
            .didClientRoleChanged(old: .broadcaster, new: .audience),
            .simulatorNotice(.localUserOfflineForPeers(.becomeAudience)),
        ])
        #expect(h.engine.videoSource(forUid: 42) == nil)
        h.engine.updateChannel(with: AgoraRtcChannelMediaOptions(clientRoleType: .broadcaster))
        await h.settle()
        #expect(h.recorder.events.last == .didClientRoleChanged(old: .audience, new: .broadcaster))
        #expect(h.engine.videoSource(forUid: 42) != nil)
    }
}
