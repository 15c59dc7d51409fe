import AccessToken
import AgoraVocabulary
import HubProtocol
import HubServer
import Synchronization
import TestSupport
import Testing

/// The hub in tokencall test's process: its clients are links in the same process, its time a clock the test moves.
@MainActor @Suite struct LocalHubTests {
    /// What one link told its user, in order.
    final class Heard: Sendable {
        private let events = Mutex<[HubLinkEvent]>([])
        var all: [HubLinkEvent] { events.withLock { $0 } }
        func add(_ event: HubLinkEvent) { events.withLock { $0.append(event) } }
        /// The notices heard, by their type's name and uid where they have one.
        var offline: [(uid: UInt32, reason: AgoraUserOfflineReason)] {
            all.compactMap { if case .notice(.userOffline(let uid, let reason, _)) = $0 { (uid, reason) } else { nil } }
        }
    }

    nonisolated static let start = 1_800_000_000.0

    private static func token(uid: UInt32, issuedAt: Double = start, lifetime: UInt32 = 600) -> String {
        (try? AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, channel: "room",
                                    user: .uid(uid), role: .publisher, tokenExpire: lifetime, privilegeExpire: lifetime,
                                    issuedAt: UInt32(issuedAt), salt: 1)) ?? ""
    }

    private static func joined(_ link: any HubLink, uid: UInt32, token: String? = nil) -> Heard {
        let heard = Heard()
        link.open(events: heard.add)
        link.send(.join(HubJoin(appId: TestCredentials.appID, channel: "room", user: .uid(uid), token: token ?? Self.token(uid: uid))))
        return heard
    }

    /// A link whose network is cut is heard from by nobody: after the hub's silence limit the others hear it dropped;
    /// when it speaks again it learns its connection is gone, and connects again.
    @Test func aSilentLinkIsDroppedForTheOthersAfterTheSilenceLimitAndConnectsAgain() async {
        let clock = ManualClock(unixTime: Self.start)
        let hub = LocalHub(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, clock: clock,
                           unixTime: { clock.unixTime })
        let (a, b) = (hub.link(), hub.link())
        let heardByA = Self.joined(a, uid: 1), heardByB = Self.joined(b, uid: 2)
        await clock.advance(by: .zero)
        #expect(heardByB.all.contains(.notice(.joined(channel: "room", uid: 2, role: .broadcaster, expiresAt: Int64(Self.start) + 600,
                                                      users: [HubPeer(uid: 1, account: nil)]))), "\(heardByB.all)")
        a.setSilent(true)
        await clock.advance(by: HubSilence.limit - .milliseconds(1))
        #expect(heardByB.offline.isEmpty)
        await clock.advance(by: .milliseconds(1))
        #expect(heardByB.offline.map(\.uid) == [1] && heardByB.offline.map(\.reason) == [.dropped], "\(heardByB.all)")
        let before = heardByA.all.count
        a.setSilent(false)
        await clock.advance(by: .zero)
        #expect(heardByA.all.dropFirst(before).first == .lost(reason: "the hub heard nothing from it for 20.0 seconds"), "\(heardByA.all)")
        await clock.advance(by: LocalHub.reconnectAfter)
        #expect(heardByA.all.last == .connected, "\(heardByA.all)")
    }

    /// Tokens from another wall (a real server's, while the call leaps): checked against that wall, and ended where
    /// `tokenWall` puts them on the hub's — here a token issued a year before the hub's wall, living 60 s of its time.
    @Test func aTokenFromAnotherWallIsCheckedAndEndedAsTheWallSays() async {
        let clock = ManualClock(unixTime: Self.start)
        let realWall = Self.start - 365 * 86_400
        let wall = HubServer.Configuration.OtherWall(unixTime: { realWall }, end: { token in
            Int64(Self.start) + Int64(token.joinDeadline) - Int64(token.issuedAt)
        })
        let hub = LocalHub(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, clock: clock,
                           unixTime: { clock.unixTime }, tokenWall: wall)
        let heard = Self.joined(hub.link(), uid: 1, token: Self.token(uid: 1, issuedAt: realWall, lifetime: 60))
        await clock.advance(by: .seconds(29))
        #expect(heard.all.count == 2 && heard.all.last == .notice(.joined(channel: "room", uid: 1, role: .broadcaster,
                                                                          expiresAt: Int64(Self.start) + 60, users: [])), "\(heard.all)")
        await clock.advance(by: .seconds(1))
        #expect(heard.all.last == .notice(.tokenPrivilegeWillExpire(expiresAt: Int64(Self.start) + 60)), "\(heard.all)")
        await clock.advance(by: .seconds(30))
        #expect(heard.all.last == .notice(.connectionStateChanged(state: .failed, reason: .reasonTokenExpired, error: .tokenExpired)), "\(heard.all)")
    }
}
