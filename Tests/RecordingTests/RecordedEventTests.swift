import AccessToken
import CallSession
import ChannelEngine
import Recording
import Testing

/// Every kind of event, as a session publishes it, with its time in whole milliseconds as a recording keeps it.
let everyKind: [SessionEvent.Kind] = {
    var stats = AgoraChannelStats()
    stats.duration = 61
    stats.txBytes = 5
    stats.rxBytes = 7
    stats.userCount = 3
    stats.cpuAppUsage = 0.25
    let engine: [AgoraRtcEvent] = [
        .didJoinChannel(channel: "test", uid: 42, elapsed: 120),
        .didRejoinChannel(channel: "caf\u{e9} \"q\"", uid: 4_294_967_295, elapsed: 7),
        .didLeaveChannel(channel: "test", uid: 42, stats: stats),
        .connectionStateChanged(.reconnecting, reason: .reasonInterrupted),
        .tokenPrivilegeWillExpire(token: ""),
        .requestToken,
        .renewTokenResult(token: "", code: .tokenExpired),
        .didJoinedOfUid(1001, elapsed: 3000),
        .didOfflineOfUid(1001, reason: .becomeAudience),
        .firstRemoteVideoFrame(uid: 1002, size: VideoSize(width: 640, height: 360), elapsed: 250),
        .didOccurError(.invalidToken),
        .didClientRoleChanged(old: .broadcaster, new: .audience),
        .didClientRoleChanged(old: .audience, new: .audience, latency: .lowLatency),
        .didLocalUserRegistered(account: "alice\u{1b}[31m", uid: 9),
        .reportRtcStats(stats),
        .networkQuality(uid: 0, tx: .vBad, rx: .unknown),
        .reportAudioVolumeIndication(speakers: [AgoraRtcAudioVolumeInfo(uid: 0, volume: 200, vad: 1),
                                                AgoraRtcAudioVolumeInfo(uid: 1001, volume: 3)], totalVolume: 203),
        .reportAudioVolumeIndication(speakers: [], totalVolume: 0),
        .activeSpeaker(uid: 1001),
        .remoteVideoStateChanged(uid: 1002, state: .frozen, reason: .congestion, elapsed: 9),
        .connectionInterrupted, .connectionLost, .connectionBanned,
        .simulatorNotice(.signatureNotChecked),
        .simulatorNotice(.tokenAccepted(expiresAt: 1_800_000_040, short: true)),
        .simulatorNotice(.localUserOfflineForPeers(.dropped)),
        .simulatorNotice(.network(down: true)),
        .simulatorNotice(.hubConnected),
        .simulatorNotice(.hubLost(reason: "the hub closed the connection\n\u{1b}[2J")),
        .simulatorNotice(.hubError("already in channel test")),
        .simulatorNotice(.accepted(.setParameters, arguments: #"{"che.video":1}"#)),
        .simulatorNotice(.accepted(.setLogFile, arguments: "/tmp/a\u{1b}[2J.log")),
    ]
    return engine.map(SessionEvent.Kind.engine) + [
        .tokenFetchStarted(reason: "willExpire"),
        .tokenFetched(latency: .milliseconds(12), expiresAt: 1_800_000_040),
        .tokenFetchFailed(error: "the server answered 503", retryIn: .seconds(2)),
        .tokenFetchFailed(error: "refused", retryIn: nil),
        .tokenRenewed(method: .update),
        .tokenPasted(expiresAt: 1_800_000_100),
        .tokenNeeded(secondsLeft: 0),
        .autoRenewChanged(on: false),
        .renewMethodChanged(.rejoin),
        .mistakeChanged(.wrongUid),
        .mistakeChanged(nil),
        .roleChanged(.audience),
        .note("embedded token server on http://127.0.0.1:1234\nline two"),
        .stuck(reason: "the token server refused the credential"),
        .sessionEnded(failed: true),
    ]
}()

@Suite struct RecordedEventTests {
    @Test(arguments: everyKind.indices)
    func everyKindReadsBackEqual(index: Int) throws {
        let event = SessionEvent(time: .seconds(index * 97) + .milliseconds(index * 13), kind: everyKind[index])
        let read = try Recording.read(Array((RecordingFixtures.header.line + "\n" + event.recordedLine + "\n").utf8))
        #expect(read.events == [event])
        #expect(read.events.first?.jsonLine == event.jsonLine)
    }

    @Test func theLocalUsersRegistrationIsRecordedUnderThe4xNameAndReadUnderEither() throws {
        let event = SessionEvent(time: .seconds(2), kind: .engine(.didLocalUserRegistered(account: "alice", uid: 9)))
        #expect(event.recordedLine.contains(#""event": "didLocalUserRegistered""#), "\(event.recordedLine)")
        // A recording made before the rename holds the 3.x name; it reads as the same event, written with the new one.
        let old = event.recordedLine.replacing("didLocalUserRegistered", with: "didRegisteredLocalUser")
        for line in [event.recordedLine, old] {
            let read = try Recording.read(Array((RecordingFixtures.header.line + "\n" + line + "\n").utf8))
            #expect(read.events == [event], "\(line)")
        }
    }

    @Test func aTokenIsNeverWrittenAndReadsBackEmpty() throws {
        let token = "007eJxTYGgRUNGL7lR4"
        for kind: AgoraRtcEvent in [.tokenPrivilegeWillExpire(token: token), .renewTokenResult(token: token, code: .success)] {
            let line = SessionEvent(time: .seconds(3), kind: .engine(kind)).recordedLine
            #expect(!line.contains("007eJx"))
            let read = try Recording.read(Array((RecordingFixtures.header.line + "\n" + line + "\n").utf8))
            let blank: AgoraRtcEvent = if case .renewTokenResult = kind { .renewTokenResult(token: "", code: .success) } else { .tokenPrivilegeWillExpire(token: "") }
            #expect(read.events == [SessionEvent(time: .seconds(3), kind: .engine(blank))])
        }
    }

    /// The options come as the command line's record keeps them (`Invocation.kept`, credentials left out: the
    /// command's tests check the file for them).
    @Test func theHeaderReadsBackEqual() throws {
        let header = RecordingHeader(options: ["channel": "test", "token-url": "https://tokens.example/t", "json": ""],
                                     seed: UInt64.max, started: 1_800_000_000.1234, call: RecordingFixtures.header.call)
        let read = try Recording.read(Array((header.line + "\n").utf8))
        #expect(read.header == header)
        #expect(read.header.started == 1_800_000_000.123)
        #expect(read.events.isEmpty)
    }

    /// The header names the SDK the call was shown in; one written before there were profiles reads as iOS's (issue 35).
    @Test func theHeaderKeepsTheSDKAndAnOlderOneSpeaksIOS() throws {
        var header = RecordingFixtures.header
        header.call.voice = SDKVoice(.web, version: SDKVersion("4.20"))
        #expect(header.line.hasSuffix(#""sdk": "web", "sdkVersion": "4.20"}}"#))
        #expect(try Recording.read(Array((header.line + "\n").utf8)).header == header)
        let older = RecordingFixtures.header.line.replacingOccurrences(of: #", "sdk": "ios", "sdkVersion": "4.6""#, with: "")
        #expect(older != RecordingFixtures.header.line)
        #expect(try Recording.read(Array((older + "\n").utf8)).header.call.voice == .standard)
        let unknown = RecordingFixtures.header.line.replacingOccurrences(of: #""sdk": "ios""#, with: #""sdk": "symbian""#)
        #expect(throws: RecordingError.self) { try Recording.read(Array((unknown + "\n").utf8)) }
    }

    @Test func anAccountJoinsHeaderKeepsTheAccount() throws {
        var header = RecordingFixtures.header
        header.call.account = "alice \"the\" 1st"
        let read = try Recording.read(Array((header.line + "\n").utf8))
        #expect(read.header.call.account == "alice \"the\" 1st")
        #expect(try Recording.read(Array((RecordingFixtures.header.line + "\n").utf8)).header.call.account == nil)
    }
}

enum RecordingFixtures {
    static let header = RecordingHeader(
        options: ["channel": "test", "seed": "7"], seed: 7, started: 1_800_000_000,
        call: .init(channel: "test", uid: 0, role: .broadcaster, tokenServer: "http://127.0.0.1:1/ (embedded)", renewMethod: .renew, autoRenew: true))
}
