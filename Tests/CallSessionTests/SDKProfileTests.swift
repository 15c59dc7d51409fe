import AccessToken
import ChannelEngine
import Foundation
import Synchronization
import TestSupport
import Testing
import TokenClient
@testable import CallSession

/// Tokens for the call's channel first, then for another: every renewal after the join is refused.
private final class WrongChannelAfterJoin: TokenProvider, Sendable {
    private let calls = Mutex(0)
    private let unixTime: @Sendable () -> Double

    init(clock: ManualClock) { unixTime = { clock.unixTime } }

    func fetchToken(for request: TokenRequest) async throws -> FetchedToken {
        let call = calls.withLock { count -> Int in
            count += 1
            return count
        }
        let issued = UInt32(unixTime())
        let token = try serverToken(channel: call == 1 ? request.channel : "another", user: request.user, issuedAt: issued,
                                    salt: UInt32(call))
        return FetchedToken(token: token, expiresAt: Int64(issued) + 40)
    }

    var source: TokenSource {
        TokenSource(provider: self, url: URL(string: "http://127.0.0.1:8082")!,
                    ownServer: OwnTokenServer(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, tokenLifetime: 40) { true })
    }
}

/// What a call prints headless in each SDK's words (issue 35).
@MainActor
@Suite(.serialized) struct SDKProfileTests {
    enum Run: String, CaseIterable { case renewal, refused, expiry }

    /// The token flow's lines a run prints headless in `voice`: the SDK's callbacks with their states, and the session's
    /// own token events.
    static func lines(_ run: Run, in voice: SDKVoice) async throws -> [String] {
        let clock = SessionHarness.makeClock()
        let refusing = WrongChannelAfterJoin(clock: clock)
        let h = SessionHarness(clock: clock, source: run == .refused ? refusing.source : nil) { config in
            config.voice = voice
            config.autoRenew = run != .expiry || voice.profile == .web
        }
        h.session.start()
        await h.run(for: 1)
        switch run {
        case .renewal, .refused: await h.run(for: 11)
        case .expiry where voice.profile == .web: h.session.expireNow(); await h.run(for: 2)
        case .expiry: await h.run(for: 41)
        }
        await h.stop()
        let flow: Set<String> = Set(SDKWord.allCases.map(\.rawValue)).union(["tokenFetchStarted", "tokenRenewed", "stuck"])
        return h.events.filter { flow.contains($0.name) }.compactMap { $0.textLine(in: voice) }.map { line in
            String(line.drop { $0 != "]" }.dropFirst(2))
        }
    }

    @Test(arguments: SDKProfile.allCases, Run.allCases)
    func explore(profile: SDKProfile, run: Run) async throws {
        let lines = try await Self.lines(run, in: SDKVoice(profile))
        print("=== \(profile) \(run)\n" + lines.joined(separator: "\n"))
    }
}
