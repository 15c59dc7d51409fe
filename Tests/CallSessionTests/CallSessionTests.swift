import AccessToken
import ChannelEngine
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing
import TokenClient
@testable import CallSession

/// A session on a manual clock, recording its events. Its tokens come from the process itself unless a test gives a
/// source; one that crosses real sockets (`loopback`) is given real time to answer.
@MainActor
final class SessionHarness {
    let clock: ManualClock
    let session: CallSession
    /// The in-process token server, when the session uses it.
    let local: LocalTokenServer?
    private let loopback: Bool
    var events: [SessionEvent] = []

    /// A manual clock whose wall time starts at the real time now, so real servers' tokens fit it.
    static func makeClock() -> ManualClock { ManualClock(unixTime: Double(Int(Date().timeIntervalSince1970))) }

    init(clock: ManualClock = makeClock(), tokenLifetime: UInt32 = 40, source: TokenSource? = nil, tokens: TokenOrigin? = nil,
         loopback: Bool = false, _ adjust: (inout CallSession.Configuration) -> Void = { _ in }) {
        self.clock = clock
        self.loopback = loopback
        var config = CallSession.Configuration()
        config.clock = clock
        let clock = clock
        config.unixTime = { clock.unixTime }
        config.remoteUsers = 0
        config.seed = 1
        adjust(&config)
        local = source == nil && tokens == nil ? LocalTokenServer(lifetime: tokenLifetime, clock: clock) : nil
        session = CallSession(config, tokens: tokens ?? .server(source ?? local!.source, first: nil))
        session.observe { [weak self] in self?.events.append($0) }
    }

    func names() -> [String] { events.map(\.name) }
    func count(_ name: String) -> Int { events.filter { $0.name == name }.count }
    func first(_ name: String) -> SessionEvent? { events.first { $0.name == name } }

    /// Advances in small steps, letting fetches finish between them.
    /// Stops the session and lets the engine's leave callbacks arrive.
    func stop() async {
        session.stop()
        await clock.advance(by: .zero)
    }

    func run(for seconds: Double, step: Double = 0.25) async {
        var left = seconds
        while left > 0 {
            await settle()
            await clock.advance(by: .milliseconds(Int64(min(step, left) * 1000)))
            left -= step
        }
        await settle()
    }

    /// Whether the fetch under way waits for the clock (a provider that does not answer, and the deadline asleep).
    var fetchWaitsForTheClock: () -> Bool = { false }

    /// Lets a fetch under way finish (or come to wait for the clock) and `condition` come to hold. In the process that
    /// takes turns of the main actor, not time; over loopback, up to 200 ms of real time for the answer to cross.
    func settle(until condition: () -> Bool = { true }) async {
        let deadline = ContinuousClock.now + .milliseconds(200)
        for _ in 0..<200_000 {
            if condition(), !session.fetchingToken || (fetchWaitsForTheClock() && clock.sleeperCount > 0) { return }
            await Task.yield()
            if loopback {
                guard ContinuousClock.now < deadline else { return }
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
    }
}

@MainActor
@Suite(.serialized) struct CallSessionTests {
    @Test func announcesItsOwnServerFetchesThenJoins() async throws {
        let h = SessionHarness()
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 1)
        let names = h.names()
        #expect(names.first == "note")
        #expect(Array(names.drop { $0 == "note" }.prefix(3)) == ["tokenFetchStarted", "tokenFetched", "connectionStateChanged"])
        #expect(h.session.engine?.connectionState == .connected)
        #expect(h.first("didJoinChannel") != nil)
        await h.stop()
        #expect(h.names().suffix(3) == ["didLeaveChannel", "simulatorNotice", "sessionEnded"])
        #expect(h.events.last?.kind == .sessionEnded(failed: false))
    }

    @Test func renewsOnEachWarningAndKeepsTheCallUp() async throws {
        let h = SessionHarness()
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 125)
        #expect(h.count("tokenPrivilegeWillExpire") >= 10)
        #expect(h.count("tokenRenewed") == h.count("tokenPrivilegeWillExpire"))
        #expect(h.count("requestToken") == 0)
        let warned = try #require(h.first("tokenPrivilegeWillExpire"))
        #expect(warned.time >= .seconds(10) && warned.time < .seconds(11), "40 s tokens warn about 10 s in")
        #expect(h.events.contains { $0.kind == .tokenRenewed(method: .renew) })
        #expect(h.session.engine?.connectionState == .connected)
    }

    @Test func tokensShorterThanTheWarningAreRenewedHalfwayNotInALoop() async throws {
        let h = SessionHarness(tokenLifetime: 5)
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 30)
        // A 5 s token warns as soon as it is taken; renewed halfway, that is a fetch every 2.5 s or so.
        #expect((8...16).contains(h.count("tokenFetchStarted")), "\(h.count("tokenFetchStarted")) fetches in 30 s")
        #expect(h.count("requestToken") == 0)
        #expect(h.session.engine?.connectionState == .connected)
    }

    @Test(arguments: [SessionCommand.rejoin, .leave])
    func aCallJoiningAgainWithoutAGivenUidKeepsItsUid(command: SessionCommand) async throws {
        let h = SessionHarness()
        h.session.start()
        await h.run(for: 1)
        h.session.perform(command)
        await h.run(for: 1)
        if command == .leave { h.session.perform(.join) }
        await h.run(for: 1)
        let joined = h.events.compactMap { event -> UInt? in
            if case .engine(.didJoinChannel(_, let uid, _)) = event.kind { uid } else { nil }
        }
        #expect(joined.count == 2)
        #expect(Set(joined).count == 1, "the uid the engine gave stays: \(joined)")
        await h.stop()
    }

    /// The unix expiries of the tokens the engine accepted, in order.
    private func acceptedExpiries(_ h: SessionHarness) -> [Int64] {
        h.events.compactMap { if case .engine(.simulatorNotice(.tokenAccepted(let expiresAt, _))) = $0.kind { expiresAt } else { nil } }
    }

    @Test func renewingByHandTwiceSendsTwoRequestsAndRenewsWithTwoNewTokens() async throws {
        let h = SessionHarness()
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 1)
        var tokens = [h.session.engine?.currentToken]
        for _ in 0..<2 {
            h.session.renewNow()
            await h.run(for: 1)
            tokens.append(h.session.engine?.currentToken)
        }
        #expect(h.local?.fetchCount == 3, "the server saw a request for each")
        #expect(h.count("tokenFetchStarted") == 3, "the screen's fetches count requests sent")
        #expect(h.session.fetchCount == 3)
        #expect(Set(tokens.compactMap { $0 }).count == 3)
        let expiries = acceptedExpiries(h)
        #expect(expiries.count == 3 && Set(expiries).count == 3, "three tokens accepted: \(expiries)")
        #expect(h.count("tokenRenewed") == 2)
        #expect(h.count("tokenFromCache") == 0)
    }

    @Test func aJoinAfterLeavingAndARejoinAskTheServerForNewTokens() async throws {
        let h = SessionHarness()
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 1)
        h.session.leave()
        await h.run(for: 1)
        h.session.join()
        await h.run(for: 1)
        #expect(h.session.engine?.connectionState == .connected)
        h.session.rejoin()
        await h.run(for: 1)
        #expect(h.session.engine?.connectionState == .connected)
        #expect(h.local?.fetchCount == 3)
        #expect(h.count("tokenFetched") == 3)
        #expect(Set(acceptedExpiries(h)).count == 3)
    }

    /// With renew method rejoin the warning's renewal leaves and joins again; `n` pressed while that join is under way
    /// does not leave a connection that never joined, nor rejoin a second time.
    @Test func renewingByHandWhileARejoinRenewalIsJoiningWaitsForIt() async throws {
        let h = SessionHarness { $0.renewMethod = .rejoin }
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        for _ in 0..<400 where !(h.count("tokenPrivilegeWillExpire") == 1 && h.session.engine?.connectionState == .connecting) {
            await h.run(for: 0.05, step: 0.05)
        }
        #expect(h.session.engine?.connectionState == .connecting, "the warning's rejoin is joining")
        h.session.renewNow()
        await h.run(for: 5)
        #expect(h.session.engine?.connectionState == .connected)
        let joined = h.events.compactMap { if case .engine(.didJoinChannel(_, let uid, _)) = $0.kind { uid } else { nil } }
        let left = h.events.compactMap { if case .engine(.didLeaveChannel(_, let uid, _)) = $0.kind { uid } else { nil } }
        #expect(left.count == 1, "one leave and join for the warning's renewal: left \(left)")
        #expect(left.allSatisfy(joined.contains), "left \(left), joined \(joined)")
        #expect(h.events.contains { $0.kind == .note("renew: the engine has not answered the last token yet; press n again once it has") })
    }

    @Test func addingUsersStopsAtTheLimitAndSaysSo() async throws {
        let h = SessionHarness { $0.remoteUsers = AgoraRtcEngineKit.remoteUserLimit - 1 }
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 1)
        h.session.addRemoteUser()
        h.session.addRemoteUser()
        #expect(h.session.engine?.simulatedRemoteUserCount == AgoraRtcEngineKit.remoteUserLimit)
        #expect(h.events.contains { $0.kind == .note("+: the channel already has 16 remote users, the most it simulates") })
    }

    @Test(arguments: RenewMethod.allCases)
    func eachRenewMethodLandsBeforeExpiry(method: RenewMethod) async throws {
        let h = SessionHarness { $0.renewMethod = method; $0.remoteUsers = 1 }
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 45)
        #expect(h.events.contains { $0.kind == .tokenRenewed(method: method) })
        #expect(h.count("requestToken") == 0)
        #expect(h.session.engine?.connectionState == .connected)
        if method == .rejoin {
            #expect(h.count("didLeaveChannel") >= 1)
        } else {
            #expect(h.count("didLeaveChannel") == 0)
        }
    }

    @Test func stoppingItsOwnServerFailsTheRenewalsUntilItRunsAgain() async throws {
        let h = SessionHarness()
        h.session.start()
        await h.run(for: 5)
        h.session.toggleTokenServer()
        #expect(h.events.last?.kind == .note("embedded token server stopped"))
        await h.run(for: 10)
        let failure = try #require(h.events.first { $0.name == "tokenFetchFailed" })
        #expect(failure.time >= .seconds(10), "the renewal at the warning found the server stopped")
        h.session.toggleTokenServer()
        #expect(h.events.last?.kind == .note("embedded token server started again"))
        await h.run(for: 35)
        #expect(h.count("tokenRenewed") >= 1)
        #expect(h.count("requestToken") == 0, "renewed before the token ran out")
        #expect(h.session.engine?.connectionState == .connected)
    }

    @Test func aServerOfTheUsersCannotBeStoppedHere() async throws {
        let clock = SessionHarness.makeClock()
        let h = SessionHarness(clock: clock, source: .http(URL(string: "http://127.0.0.1:9")!, clock: clock))
        h.session.toggleTokenServer()
        #expect(h.events.last?.kind == .note("server: only the embedded token server can be stopped here"))
    }

    @Test(arguments: RenewMethod.allCases)
    func eachRenewMethodRecoversAnExpiredCall(method: RenewMethod) async throws {
        let h = SessionHarness { $0.autoRenew = false; $0.renewMethod = method }
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 41)
        #expect(h.session.engine?.connectionState == .failed)
        h.session.renewNow()
        await h.run(for: 1)
        #expect(h.events.contains { $0.kind == .tokenRenewed(method: method) })
        #expect(h.session.engine?.connectionState == .connected)
    }

    @Test func anAudienceMemberJoinsAsAudienceWithoutARoleChange() async throws {
        let h = SessionHarness { $0.role = .audience }
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 1)
        #expect(h.session.engine?.connectionState == .connected)
        #expect(h.session.engine?.clientRole == .audience)
        #expect(h.count("didClientRoleChanged") == 0)
    }

    @Test func withoutAutoRenewTheTokenExpiresAndAManualRenewalRecovers() async throws {
        let h = SessionHarness { $0.autoRenew = false }
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 41)
        #expect(h.count("tokenPrivilegeWillExpire") == 1)
        #expect(h.count("requestToken") == 1)
        #expect(h.session.engine?.connectionState == .failed)
        h.session.renewNow()
        await h.run(for: 1)
        #expect(h.count("tokenRenewed") == 1)
        #expect(h.session.engine?.connectionState == .connected)
        await h.stop()
        #expect(h.events.last?.kind == .sessionEnded(failed: false))
    }

    /// The call's token requests are made, and their answers checked, on the main queue where the call runs: no hop to
    /// Swift's shared threads and back for each renewal (about half the wake-ups of a simulated day's 8,640).
    @Test func aCallsTokenRequestsRunOnTheMainQueueWithTheCall() async throws {
        let clock = SessionHarness.makeClock()
        let provider = WhereAsked(LocalTokenServer(clock: clock))
        let h = SessionHarness(clock: clock, source: TokenSource(provider: provider, url: URL(string: "http://127.0.0.1:8082")!))
        h.session.start()
        await h.settle(until: { h.count("tokenFetched") == 1 })
        await h.run(for: 25)
        #expect(h.count("tokenRenewed") >= 1)
        #expect(!provider.onMainQueue.isEmpty && provider.onMainQueue.allSatisfy { $0 }, "on the main queue: \(provider.onMainQueue)")
        await h.stop()
    }
}

extension CallSessionTests {
    /// A server that never answers, and a provider that ignores cancellation: the fetch, run on the main queue, still
    /// fails at its deadline on the real clock (the cache's watchdog wakes there too), and the call says so.
    @Test func aFetchThatIsNeverAnsweredFailsAtItsDeadline() async throws {
        let clock = SessionHarness.makeClock()
        let h = SessionHarness(clock: clock, source: TokenSource(provider: Unanswered(), url: URL(string: "http://127.0.0.1:8082")!)) {
            $0.networkClock = ContinuousClock()
            $0.requestTimeout = .milliseconds(300)
        }
        let started = ContinuousClock.now
        h.session.start()
        #expect(await eventually { h.count("tokenFetchFailed") == 1 })
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        let failed = try #require(h.first("tokenFetchFailed"))
        guard case .tokenFetchFailed(let error, _) = failed.kind else {
            Issue.record("\(failed.kind)")
            return
        }
        #expect(error == "\(TokenClientError.timeout(.milliseconds(300)))")
        await h.stop()
    }
}

/// A token server that never answers, whatever is cancelled.
final class Unanswered: TokenProvider, Sendable {
    func fetchToken(for request: TokenRequest) async throws -> FetchedToken {
        await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
        throw CancellationError()
    }
}

/// A token server that notes, for each request, whether it was asked on the main queue.
final class WhereAsked: TokenProvider, Sendable {
    private static let mainQueue: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    private let server: LocalTokenServer
    private let asked = Mutex<[Bool]>([])

    init(_ server: LocalTokenServer) {
        self.server = server
        _ = Self.mainQueue
    }

    var onMainQueue: [Bool] { asked.withLock { $0 } }

    func fetchToken(for request: TokenRequest) async throws -> FetchedToken {
        let onMain = DispatchQueue.getSpecific(key: Self.mainQueue) == true
        asked.withLock { $0.append(onMain) }
        return try await server.fetchToken(for: request)
    }
}
