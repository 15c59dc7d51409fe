@testable import ChannelEngine
import HubProtocol
import Testing
import TestSupport

/// Mutes over the hub (issue 37, item 3: "peers see it"): the local states go to the hub with the join and as they
/// change; a peer's arrive as the SDK's remote state callbacks.
@MainActor
@Suite struct HubMediaStateTests {
    private func mediaRequests(_ hub: HubHarness) -> [HubMedia] {
        hub.link.requests.compactMap { if case .media(let media) = $0 { media } else { nil } }
    }

    @Test func theJoinTellsTheLocalStatesAndEachMuteGoesToTheHubOnce() async {
        let hub = HubHarness()
        hub.engine.enableVideo()
        hub.engine.muteLocalAudioStream(true)
        await hub.join()
        #expect(hub.link.joins.last?.media == HubMedia(audio: .muted, video: .on))
        #expect(mediaRequests(hub).isEmpty)
        hub.engine.muteLocalVideoStream(true)
        hub.engine.muteLocalVideoStream(true)
        hub.engine.muteLocalAudioStream(false)
        await hub.h.settle()
        #expect(mediaRequests(hub) == [HubMedia(audio: .muted, video: .muted), HubMedia(audio: .on, video: .muted)])
        hub.link.clear()
        await hub.h.advance(0.5)
        #expect(hub.link.frames.isEmpty, "muted video sends no frames")
        hub.engine.enableLocalAudio(false)
        await hub.h.settle()
        #expect(mediaRequests(hub) == [HubMedia(audio: .off, video: .muted)])
    }

    @Test func aPeersMutesArriveAsRemoteAudioAndVideoStateChanges() async {
        let hub = HubHarness()
        await hub.join()
        hub.link.inject(.userJoined(HubPeer(uid: 9, account: nil)))
        hub.link.inject(.userMedia(uid: 9, HubMedia(audio: .on, video: .on)))
        await hub.h.settle()
        #expect(hub.recorder.events.suffix(4) == [
            .didJoinedOfUid(9, elapsed: 0),
            .remoteVideoStateChanged(uid: 9, state: .starting, reason: .internal, elapsed: 0),
            .remoteAudioStateChanged(uid: 9, state: .starting, reason: .internal, elapsed: 0),
            .remoteAudioStateChanged(uid: 9, state: .decoding, reason: .internal, elapsed: 0),
        ])
        hub.recorder.clear()
        hub.link.inject(.userMedia(uid: 9, HubMedia(audio: .muted, video: .muted)))
        await hub.h.advance(2)
        hub.link.inject(.userMedia(uid: 9, HubMedia(audio: .on, video: .on)))
        await hub.h.settle()
        #expect(hub.recorder.events.filter { $0.name.hasPrefix("remote") } == [
            .remoteAudioStateChanged(uid: 9, state: .stopped, reason: .remoteMuted, elapsed: 0),
            .remoteVideoStateChanged(uid: 9, state: .stopped, reason: .remoteMuted, elapsed: 0),
            .remoteAudioStateChanged(uid: 9, state: .decoding, reason: .remoteUnmuted, elapsed: 2000),
            .remoteVideoStateChanged(uid: 9, state: .decoding, reason: .remoteUnmuted, elapsed: 2000),
        ])
    }

    @Test func thePeersPresentWhenWeJoinAreReportedWithTheStatesTheHubToldAndOnlyHubPeersCount() async {
        let hub = HubHarness()
        let token = hub.h.token()
        hub.link.inject(.connected)
        hub.engine.joinChannel(byToken: token, channelId: "test", uid: 42)
        await hub.h.settle()
        hub.link.inject(hub.joined(users: [7]))
        hub.link.inject(.userMedia(uid: 7, HubMedia(audio: .muted, video: .off)))
        hub.link.inject(.userMedia(uid: 8, HubMedia(audio: .on, video: .on)))
        await hub.h.settle()
        #expect(hub.recorder.events.filter { $0.name.hasPrefix("remote") } == [
            .remoteVideoStateChanged(uid: 7, state: .starting, reason: .internal, elapsed: 0),
            .remoteVideoStateChanged(uid: 7, state: .stopped, reason: .remoteMuted, elapsed: 0),
        ])
    }
}
