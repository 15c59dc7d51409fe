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

    /// Each SDK's words as Agora's references for it write them (/work/shared/reference/sdk-profiles.md), written here
    /// apart from the table they check.
    struct Words {
        let willExpire, requestToken: String
        let result: String?
        let stateChange, joined, error: String
        /// `state=… reason=…` of a join's connecting and connected, and of an expiry.
        let connecting, connected, expired: String
    }

    static let words: [SDKProfile: Words] = [
        .ios: Words(willExpire: "tokenPrivilegeWillExpire", requestToken: "requestToken", result: "renewTokenResult",
                    stateChange: "connectionStateChanged", joined: "didJoinChannel", error: "didOccurError",
                    connecting: "state=connecting reason=connecting", connected: "state=connected reason=joinSuccess",
                    expired: "state=failed reason=tokenExpired"),
        .android: Words(willExpire: "onTokenPrivilegeWillExpire", requestToken: "onRequestToken", result: "onRenewTokenResult",
                        stateChange: "onConnectionStateChanged", joined: "onJoinChannelSuccess", error: "onError",
                        connecting: "state=CONNECTION_STATE_CONNECTING reason=CONNECTION_CHANGED_CONNECTING",
                        connected: "state=CONNECTION_STATE_CONNECTED reason=CONNECTION_CHANGED_JOIN_SUCCESS",
                        expired: "state=CONNECTION_STATE_FAILED reason=CONNECTION_CHANGED_TOKEN_EXPIRED"),
        .web: Words(willExpire: "token-privilege-will-expire", requestToken: "token-privilege-did-expire", result: "client.renewToken",
                    stateChange: "connection-state-change", joined: "client.join", error: "exception",
                    connecting: "state=CONNECTING", connected: "state=CONNECTED", expired: "state=DISCONNECTED reason=TOKEN_EXPIRE"),
        .flutter: Words(willExpire: "onTokenPrivilegeWillExpire", requestToken: "onRequestToken", result: "onRenewTokenResult",
                        stateChange: "onConnectionStateChanged", joined: "onJoinChannelSuccess", error: "onError",
                        connecting: "state=connectionStateConnecting reason=connectionChangedConnecting",
                        connected: "state=connectionStateConnected reason=connectionChangedJoinSuccess",
                        expired: "state=connectionStateFailed reason=connectionChangedTokenExpired"),
        .reactNative: Words(willExpire: "onTokenPrivilegeWillExpire", requestToken: "onRequestToken", result: "onRenewTokenResult",
                            stateChange: "onConnectionStateChanged", joined: "onJoinChannelSuccess", error: "onError",
                            connecting: "state=ConnectionStateConnecting reason=ConnectionChangedConnecting",
                            connected: "state=ConnectionStateConnected reason=ConnectionChangedJoinSuccess",
                            expired: "state=ConnectionStateFailed reason=ConnectionChangedTokenExpired"),
        .electron: Words(willExpire: "onTokenPrivilegeWillExpire", requestToken: "onRequestToken", result: nil,
                         stateChange: "onConnectionStateChanged", joined: "onJoinChannelSuccess", error: "onError",
                         connecting: "state=ConnectionStateConnecting reason=ConnectionChangedConnecting",
                         connected: "state=ConnectionStateConnected reason=ConnectionChangedJoinSuccess",
                         expired: "state=ConnectionStateFailed reason=ConnectionChangedTokenExpired"),
        .unity: Words(willExpire: "OnTokenPrivilegeWillExpire", requestToken: "OnRequestToken", result: nil,
                      stateChange: "OnConnectionStateChanged", joined: "OnJoinChannelSuccess", error: "OnError",
                      connecting: "state=CONNECTION_STATE_CONNECTING reason=CONNECTION_CHANGED_CONNECTING",
                      connected: "state=CONNECTION_STATE_CONNECTED reason=CONNECTION_CHANGED_JOIN_SUCCESS",
                      expired: "state=CONNECTION_STATE_FAILED reason=CONNECTION_CHANGED_TOKEN_EXPIRED"),
    ]

    /// The lines a run prints in that SDK's order, up to the leave that ends the test.
    static func expected(_ run: Run, _ w: Words, hearsResult: Bool = true) -> [String] {
        let result = hearsResult ? w.result : nil
        let joined = ["tokenFetchStarted reason=join", "\(w.stateChange) \(w.connecting)", "\(w.stateChange) \(w.connected)",
                      "\(w.joined) channel=test uid=889638518 elapsed=250"]
        let warned = [w.willExpire, "tokenFetchStarted reason=willExpire"]
        switch run {
        case .renewal:
            return joined + warned + (result.map { ["\($0) code=success"] } ?? []) + ["tokenRenewed method=renew"]
        case .refused:
            return joined + warned + [result.map { "\($0) code=invalidChannelName" } ?? "\(w.error) code=110 name=invalidToken"]
        case .expiry where w.requestToken == "token-privilege-did-expire":
            // Expired at once (e); the call joins again, the r path.
            return joined + [w.requestToken, "\(w.stateChange) \(w.expired)", "tokenFetchStarted reason=join",
                             "\(w.stateChange) state=DISCONNECTED reason=LEAVE", "client.leave channel=test uid=889638518"] + joined.dropFirst()
        case .expiry:
            return joined + [w.willExpire, w.requestToken, "\(w.stateChange) \(w.expired)"]
        }
    }

    @Test(arguments: SDKProfile.allCases, Run.allCases)
    func aRunPrintsTheSDKsNamesInItsOrder(profile: SDKProfile, run: Run) async throws {
        let lines = try await Self.lines(run, in: SDKVoice(profile))
        // The test's own leave ends every run: its state change and its leave callback.
        #expect(Array(lines.dropLast(2)) == Self.expected(run, try #require(Self.words[profile])))
    }

    @Test(arguments: [SDKProfile.ios, .android, .reactNative, .flutter])
    func beforeTheResultCallbackARenewalIsSilentAndARefusalAnError(profile: SDKProfile) async throws {
        let old = SDKVoice(profile, version: SDKVersion(profile == .flutter ? "6.5" : "4.5"))
        let words = try #require(Self.words[profile])
        #expect(Array(try await Self.lines(.renewal, in: old).dropLast(2)) == Self.expected(.renewal, words, hearsResult: false))
        #expect(Array(try await Self.lines(.refused, in: old).dropLast(2)) == Self.expected(.refused, words, hearsResult: false))
    }

    @Test func flutterBefore6SaysItsOldNames() async throws {
        let lines = try await Self.lines(.expiry, in: SDKVoice(.flutter, version: SDKVersion("5.3")))
        #expect(lines.contains("tokenPrivilegeWillExpire") && lines.contains("requestToken"), "\(lines)")
        #expect(lines.contains("connectionStateChanged state=connectionStateFailed reason=connectionChangedTokenExpired"), "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("onTokenPrivilegeWillExpire") || $0.hasPrefix("onRequestToken") })
    }

    @Test func jsonKeepsTheIOSNameBesideTheSDKs() throws {
        let event = SessionEvent(time: .seconds(40), kind: .engine(.requestToken))
        #expect(event.jsonLine(in: SDKVoice(.android)) == #"{"t": 40.000, "event": "onRequestToken", "ios": "requestToken"}"#)
        #expect(event.jsonLine(in: SDKVoice(.web)) == #"{"t": 40.000, "event": "token-privilege-did-expire", "ios": "requestToken"}"#)
        let failed = SessionEvent(time: .seconds(40), kind: .engine(.connectionStateChanged(.failed, reason: .reasonTokenExpired)))
        #expect(failed.jsonLine(in: SDKVoice(.web))
                == #"{"t": 40.000, "event": "connection-state-change", "state": "DISCONNECTED", "reason": "TOKEN_EXPIRE", "ios": "connectionStateChanged"}"#)
    }

    @Test func aVersionIsTwoOrThreeGroupsOfDigits() {
        #expect(SDKVersion("4.5") == SDKVersion(major: 4, minor: 5))
        #expect(SDKVersion("6.6.0") == SDKVersion(major: 6, minor: 6))
        for bad in ["4", "+4.5", "4.5.6.7", "4..5", "4.5a", "\u{0664}.5", "1234.5", "", "."] { #expect(SDKVersion(bad) == nil, "\(bad)") }
        #expect(SDKVersion("4.5")! < SDKVersion("4.6")!)
    }

    @Test func anyProfilesNameFindsItsEvent() throws {
        #expect(SDKWord.named("token-privilege-did-expire")?.word == .requestToken)
        #expect(SDKWord.named("token-privilege-did-expire")?.profile == .web)
        #expect(SDKWord.named("OnRequestToken")?.word == .requestToken)
        #expect(SDKWord.named("onRenewTokenResult")?.word == .renewTokenResult)
        #expect(SDKWord.named("requestToken")?.profile == .ios)
        #expect(SDKWord.named("nothing") == nil)
    }
}
