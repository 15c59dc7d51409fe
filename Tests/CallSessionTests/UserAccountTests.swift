import AccessToken
import ChannelEngine
import Foundation
import Synchronization
import TestSupport
import Testing
import TokenClient
@testable import CallSession

/// Tokens for whoever the test says, whatever the request asks: a server that mixes up uids and accounts, as the
/// client's own audience check never would let through (a provider of the app's own need not check).
final class MixedUpServer: TokenProvider, Sendable {
    let clock: ManualClock
    /// The user each fetch's token is for, by fetch number from 1; nil gives the one asked for.
    let users: @Sendable (Int) -> RTCUser?
    let requests = Mutex<[TokenRequest]>([])

    init(clock: ManualClock, users: @escaping @Sendable (Int) -> RTCUser?) {
        self.clock = clock
        self.users = users
    }

    func fetchToken(for request: TokenRequest) async throws -> FetchedToken {
        let call = requests.withLock { requests -> Int in
            requests.append(request)
            return requests.count
        }
        let issued = UInt32(clock.unixTime)
        let token = try serverToken(user: users(call) ?? request.user, issuedAt: issued, salt: UInt32(call))
        return FetchedToken(token: token, expiresAt: Int64(issued) + 40)
    }

    var source: TokenSource {
        TokenSource(provider: self, url: URL(string: "http://127.0.0.1:8082")!,
                    ownServer: OwnTokenServer(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                              tokenLifetime: 40) { true })
    }
}

/// The uid field of the token the engine holds.
@MainActor
private func tokenUser(_ h: SessionHarness) -> String? {
    guard let token = h.session.engine?.currentToken, case .accessToken2(let parsed)? = try? AgoraToken(parsing: token) else { return nil }
    return parsed.rtc?.uid
}

@MainActor
@Suite(.serialized) struct UserAccountTests {
    @Test func joinsWithTheAccountAndReportsTheUidTheEngineAssigns() async throws {
        let h = SessionHarness { $0.user = .account("alice") }
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 1)
        #expect(h.session.engine?.connectionState == .connected)
        #expect(tokenUser(h) == "alice", "the token was fetched for the account")
        let registered = try #require(h.first("didLocalUserRegistered"))
        guard case .engine(.didLocalUserRegistered(let account, let uid)) = registered.kind else {
            Issue.record("not a registration: \(registered)")
            return
        }
        #expect(account == "alice")
        #expect(uid != 0)
        #expect(h.session.engine?.connection?.localUid == uid)
        #expect(h.first("didJoinChannel")?.textLine.hasSuffix("didJoinChannel channel=test uid=\(uid) elapsed=250") == true)
        #expect(registered.textLine.hasSuffix("didLocalUserRegistered account=alice uid=\(uid)"))
        #expect(h.names().firstIndex(of: "didLocalUserRegistered")! < h.names().firstIndex(of: "didJoinChannel")!)
    }

    @Test(arguments: RenewMethod.allCases)
    func renewsWithTokensForTheAccountAndKeepsItsUid(method: RenewMethod) async throws {
        let h = SessionHarness { $0.user = .account("alice"); $0.renewMethod = method }
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 1)
        let uid = try #require(h.session.engine?.connection?.localUid)
        await h.run(for: 45)
        #expect(h.events.contains { $0.kind == .tokenRenewed(method: method) })
        #expect(h.count("requestToken") == 0)
        #expect(h.session.engine?.connectionState == .connected)
        #expect(tokenUser(h) == "alice")
        #expect(h.session.engine?.connection?.localUid == uid, "the account keeps the uid it was given")
        let fetched = h.local?.fetchCount ?? 0
        #expect(fetched >= 2)
    }

    @Test func aUidTokenForAnAccountJoinIsRefusedAndSaysWhy() async throws {
        let clock = SessionHarness.makeClock()
        let server = MixedUpServer(clock: clock) { _ in .uid(42) }
        let h = SessionHarness(clock: clock, source: server.source) { $0.user = .account("alice") }
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 1)
        #expect(server.requests.withLock { $0.map(\.user) } == [.account("alice")])
        #expect(h.events.contains { $0.kind == .engine(.didOccurError(.invalidToken)) })
        #expect(h.count("didLocalUserRegistered") == 0, "a refused join registers nothing")
        let stuck = try #require(h.first("stuck"))
        #expect(stuck.textLine.contains(#"the token was built for the integer uid 42, but you join with the account \"alice\""#),
                "\(stuck.textLine)")
        #expect(stuck.textLine.contains("the network refused the call (invalidToken): the token was built"))
    }

    @Test func anAccountTokenForAUidJoinIsRefusedAndSaysWhy() async throws {
        let clock = SessionHarness.makeClock()
        let server = MixedUpServer(clock: clock) { _ in .account("alice") }
        let h = SessionHarness(clock: clock, source: server.source) { $0.user = .uid(42) }
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 1)
        let stuck = try #require(h.first("stuck"))
        #expect(stuck.textLine.contains(#"the token was built for the user account \"alice\" (a string), but you join with the integer uid 42"#),
                "\(stuck.textLine)")
        await h.stop()
        #expect(h.events.last?.kind == .sessionEnded(failed: true))
    }

    @Test func aRenewalWithAnotherUsersTokenIsRefusedAndSaysWhy() async throws {
        let clock = SessionHarness.makeClock()
        let server = MixedUpServer(clock: clock) { call in call == 1 ? nil : .account("bob") }
        let h = SessionHarness(clock: clock, source: server.source) { $0.user = .account("alice") }
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 12)
        #expect(h.events.contains { if case .engine(.renewTokenResult(_, .invalidToken)) = $0.kind { true } else { false } })
        #expect(h.events.contains {
            $0.kind == .note(#"the engine refused the new token: the token was built for the account "bob", not "alice""#)
        })
        #expect(h.session.engine?.connectionState == .connected, "the old token holds the call until it expires")
    }

    @Test func aHostileUserFieldIsEscapedInTheDiagnosis() async throws {
        let clock = SessionHarness.makeClock()
        let hostile = "mallory\u{1B}[2J\u{202E}"
        let token = try AccessToken2(appID: TestCredentials.appID, issuedAt: UInt32(clock.unixTime), expire: 600, salt: 1, services: [
            Service(type: ServiceType.rtc.rawValue, privileges: [1: 0], detail: .rtc(channel: "test", uid: hostile)),
        ]).build(appCertificate: TestCredentials.certificate)
        let source = TokenSource(provider: FixedToken(token: token), url: URL(string: "http://127.0.0.1:8082")!,
                                 ownServer: OwnTokenServer(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                                           tokenLifetime: 600) { true })
        let h = SessionHarness(clock: clock, source: source) { $0.user = .uid(42) }
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 1)
        let stuck = try #require(h.first("stuck"))
        #expect(stuck.textLine.contains(#"user account \"mallory\u001b[2J\u202e\" (a string)"#), "\(stuck.textLine)")
        #expect(!stuck.textLine.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" })
    }
}

/// The same token every time.
private struct FixedToken: TokenProvider {
    let token: String

    func fetchToken(for request: TokenRequest) async throws -> FetchedToken {
        FetchedToken(token: token, expiresAt: (try AgoraToken(parsing: token)).joinDeadline)
    }
}
