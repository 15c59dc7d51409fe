@testable import ChannelEngine
import Foundation
import HubProtocol
import TestSupport
import Testing

/// What a hub sends that no good hub would, or that one user sends through it (issue 19, items 1 and 2): the engine
/// keeps to its bounds, and one user's content never costs anyone the link.
@MainActor
@Suite struct HostileHubTests {
    @Test func aJoinedNamingThousandsAnnouncesTheFirstOfThemUpToTheLimitAndSaysSoOnce() async {
        let hub = HubHarness()
        // The hub names 5000 others, and the local user among them.
        await hub.join(users: [1000, 42] + Array(1001..<6000))
        let shown = Array(1000..<UInt(1000 + AgoraRtcEngineKit.hubUserLimit))
        #expect(hub.engine.remoteUids == shown)
        #expect(hub.recorder.count("didJoinedOfUid") == AgoraRtcEngineKit.hubUserLimit)
        #expect(hub.recorder.events.contains(.simulatorNotice(.hubUsersPastLimit(AgoraRtcEngineKit.hubUserLimit))))

        hub.link.inject(.userJoined(HubPeer(uid: 9000, account: nil)))
        hub.link.inject(.video(hub.frame(from: 9000)))
        await hub.h.settle()
        #expect(!hub.engine.remoteUids.contains(9000))
        #expect(hub.recorder.events.count { $0 == .simulatorNotice(.hubUsersPastLimit(AgoraRtcEngineKit.hubUserLimit)) } == 1)

        // Room again once one of them leaves.
        hub.link.inject(.userOffline(uid: 1000, reason: AgoraUserOfflineReason.quit))
        hub.link.inject(.userJoined(HubPeer(uid: 9000, account: nil)))
        await hub.h.settle()
        #expect(hub.engine.remoteUids.count == AgoraRtcEngineKit.hubUserLimit)
        #expect(hub.engine.remoteUids.last == 9000)
    }

    @Test func aFloodFasterThanTheAppTakesDropsTheLinkAndWhatWaitsStaysBounded() async {
        let hub = HubHarness()
        await hub.join(users: [7])
        // The main actor is not given a turn: on the manual clock nothing is delivered until the test advances it.
        for index in 0..<20_000 { hub.link.inject(.error("flood \(index)")) }
        #expect(hub.engine.locked { hub.engine.queue.count } <= AgoraRtcEngineKit.hubBacklogLimit + 1)
        #expect(hub.link.drops == ["it sent faster than the app takes in: over \(AgoraRtcEngineKit.hubBacklogLimit) callbacks waiting"])
        // What the hub sends until the link reports the loss is not heard; then the link reconnects and joins again.
        hub.link.inject(.userJoined(HubPeer(uid: 8, account: nil)))
        hub.link.inject(.lost(reason: "ws://127.0.0.1:1/hub broke the protocol, closed with 1008: it sent faster than the app takes in"))
        await hub.h.settle()
        #expect(!hub.engine.remoteUids.contains(8))
        #expect(hub.engine.connectionState == .reconnecting)
        hub.link.inject(.connected)
        await hub.h.settle()
        #expect(hub.link.joins.count == 2)
        #expect(hub.link.drops.count == 1)
    }

    @Test func aPeersUnreadableVideoIsNotedOnceAndTheOthersVideoGoesOn() async {
        let hub = HubHarness()
        await hub.join(users: [7, 9])
        hub.link.inject(.video(hub.frame(from: 9)))
        for _ in 0..<10 {
            hub.link.inject(.unreadableVideo(uid: 7, problem: "a video frame's runs hold 10 cells, not its 32×18"))
            hub.link.inject(.video(hub.frame(from: 9)))
            await hub.h.advance(0.1)
        }
        let notes = hub.recorder.events.filter { if case .simulatorNotice(.hubVideoUnreadable) = $0 { true } else { false } }
        #expect(notes == [.simulatorNotice(.hubVideoUnreadable(uid: 7, problem: "a video frame's runs hold 10 cells, not its 32×18"))])
        #expect(hub.link.drops.isEmpty)
        #expect(hub.engine.connectionState == .connected)
        #expect(hub.engine.receivedVideo(forUid: 9) == hub.frame(from: 9))
        #expect(!hub.recorder.events.contains { if case .remoteVideoStateChanged(9, .frozen, _, _) = $0 { true } else { false } })
        // Someone the hub has not announced is nobody's business.
        hub.link.inject(.unreadableVideo(uid: 11, problem: "x"))
        await hub.h.settle()
        #expect(hub.recorder.events.count { if case .simulatorNotice(.hubVideoUnreadable) = $0 { true } else { false } } == 1)
    }

    @Test func theHubsWarningComesOncePerTokenOnAConnectionAndAgainOnTheNext() async {
        let hub = HubHarness()
        let token = await hub.join()
        for _ in 0..<50 { hub.link.inject(.tokenPrivilegeWillExpire(expiresAt: hub.expiresAt)) }
        await hub.h.settle()
        #expect(hub.recorder.events.count { $0 == .tokenPrivilegeWillExpire(token: token) } == 1)

        hub.link.inject(.lost(reason: "gone"))
        hub.link.inject(.connected)
        hub.link.inject(hub.joined())
        hub.link.inject(.tokenPrivilegeWillExpire(expiresAt: hub.expiresAt))
        await hub.h.settle()
        #expect(hub.recorder.events.count { $0 == .tokenPrivilegeWillExpire(token: token) } == 2, "the new connection's hub warns anew")
    }

    @Test func aRenewalTheLinkLostIsTheTokenTheRejoinPresentsAndItIsAnsweredThen() async {
        let hub = HubHarness()
        await hub.join()
        let fresh = hub.h.token(expire: 1200)
        hub.engine.renewToken(fresh)
        await hub.h.settle()
        #expect(hub.link.requests.last == .renew(token: fresh))
        hub.link.inject(.lost(reason: "gone"))
        hub.link.inject(.connected)
        await hub.h.settle()
        #expect(hub.link.joins.last?.token == fresh)
        hub.link.inject(hub.joined())
        await hub.h.settle()
        #expect(hub.recorder.events.contains(.renewTokenResult(token: fresh, code: .success)))
        #expect(hub.engine.currentToken == fresh)
    }
}

/// Delivery on a real clock: the main actor is let go between batches, so whatever waits for it (a signal's handler,
/// a key, `--duration`'s end) runs however many callbacks are queued.
@MainActor
@Suite struct DeliveryYieldTests {
    final class Counter: AgoraRtcEngineDelegate {
        var delivered = 0
        var seenBetween: Int?
        func rtcEngine(_ engine: AgoraRtcEngineKit, didClientRoleChanged oldRole: AgoraClientRole, newRole: AgoraClientRole,
                       newRoleOptions: AgoraClientRoleOptions?) {
            delivered += 1
            // A job that waits for the main actor from the first callback on, as a signal's handler would.
            if delivered == 1 { Task { @MainActor in self.seenBetween = self.delivered } }
        }
    }

    @Test func aLongQueueIsDeliveredInBatchesWithTheMainActorFreeBetweenThem() async throws {
        let counter = Counter()
        let simulation = Simulation(appCertificate: nil, clock: ContinuousClock(), unixTime: { Date().timeIntervalSince1970 },
                                    seed: 1, remoteUsers: 0)
        let engine = AgoraRtcEngineKit(config: AgoraRtcEngineConfig(appId: TestCredentials.appID, simulation: simulation),
                                       delegate: counter)
        for _ in 0..<1000 {  // outside a channel, each change to audience is reported
            engine.setClientRole(.audience)
            engine.setClientRole(.broadcaster)
        }
        // Turns of the main actor, not wall time: other tests share the main actor and may hold it for seconds.
        for _ in 0..<2000 where counter.delivered < 1000 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(counter.delivered == 1000)
        // The first batch holds other callbacks too (a role change's local media states), so at most one batch of
        // role changes was delivered before the job ran.
        #expect(counter.seenBetween.map { (1...AgoraRtcEngineKit.deliveryBatch).contains($0) } == true,
                "the job waited until every callback was delivered")
    }
}
