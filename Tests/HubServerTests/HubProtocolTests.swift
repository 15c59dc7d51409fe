import HubProtocol
import Testing

@Suite struct HubProtocolTests {
    @Test(arguments: [
        HubRequest.join(HubJoin(channel: "standup", user: .uid(4_294_967_295), token: "007eJx", role: .audience)),
        .join(HubJoin(appId: "970CA35de60c44645bbae8a215061b33", channel: "a b", user: .account("ali\"ce\u{1B}"), token: "")),
        .renew(token: "007eJx"),
        .setRole(.broadcaster),
        .leave,
        .ping,
        .media(HubMedia(audio: .muted, video: .off)),
        .join(HubJoin(channel: "c", user: .uid(1), token: "t", media: HubMedia(audio: .on, video: .muted))),
    ])
    func whatAClientWritesTheHubReadsAsTheSameRequest(_ request: HubRequest) throws {
        #expect(try HubRequest(json: request.json) == request)
    }

    @Test func noticesAreWrittenWithAgorasNamesAndNumbers() {
        let offline = HubNotice.userOffline(uid: 7, reason: .becomeAudience)
        #expect(offline.json == #"{"reason":"becomeAudience","reasonCode":2,"type":"userOffline","uid":7}"#)
        let joined = HubNotice.joined(channel: "c", uid: 1, role: .broadcaster, expiresAt: 1_800_000_600,
                                      users: [HubPeer(uid: 2, account: "bob"), HubPeer(uid: 3, account: nil)])
        #expect(joined.json == #"{"channel":"c","expiresAt":1800000600,"role":"broadcaster","type":"joined","uid":1,"users":[{"account":"bob","uid":2},{"uid":3}]}"#)
        #expect(HubNotice.userJoined(HubPeer(uid: 4, account: "al")).json == #"{"account":"al","type":"userJoined","uid":4}"#)
    }

    @Test func aNoticesTextIsEscapedAsJSONAsksAndNoMore() {
        let notice = HubNotice.error("say \"hi\" \\ now\n\t\u{1}/é")
        #expect(notice.json == #"{"message":"say \"hi\" \\ now\n\t\u0001/é","type":"error"}"#)
    }
}

@Suite struct HubNoticeReadingTests {
    @Test(arguments: [
        HubNotice.joined(channel: "standup", uid: 4_294_967_295, role: .audience, expiresAt: 1_800_000_600,
                         users: [HubPeer(uid: 2, account: "b\"ob\u{1B}"), HubPeer(uid: 3, account: nil)]),
        .joined(channel: "c", uid: 0, role: .broadcaster, expiresAt: 0, users: []),
        .userJoined(HubPeer(uid: 9, account: nil)),
        .userOffline(uid: 7, reason: .dropped),
        .clientRoleChanged(old: .broadcaster, new: .audience),
        .userMedia(uid: 4_294_967_295, HubMedia(audio: .on, video: .muted)),
        .tokenPrivilegeWillExpire(expiresAt: 1_800_000_570),
        .renewTokenResult(.success, expiresAt: 1_800_003_600),
        .renewTokenResult(.invalidToken, expiresAt: nil),
        .connectionStateChanged(state: .failed, reason: .reasonTokenExpired,
                                error: .tokenExpired),
        .connectionStateChanged(state: .disconnected, reason: .reasonLeaveChannel, error: nil),
        .error("join while in a channel"),
    ])
    func whatTheHubWritesAClientReadsAsTheSameNotice(_ notice: HubNotice) throws {
        #expect(try HubNotice(json: notice.json) == notice)
    }

    @Test(arguments: [
        (#"{"type":"wave"}"#, #"no notice of type "wave""#),
        (#"{"type":"userJoined","uid":-1}"#, "uid must be a whole number 0...4294967295, not -1"),
        (#"{"type":"userJoined","uid":4294967296}"#, "uid must be a whole number 0...4294967295, not 4294967296"),
        (#"{"type":"userOffline","uid":1,"reason":"quit"}"#, "reasonCode is missing"),
        (#"{"type":"userOffline","uid":1,"reason":"quit","reasonCode":1e3}"#, "reasonCode must be a whole number"),
        (#"{"type":"userOffline","uid":1,"reason":"dropped","reasonCode":1,"silentMs":-1}"#,
         "silentMs must be a whole number 0...4294967295, not -1"),
        (#"{"type":"joined","channel":"c","uid":1,"role":"host","expiresAt":1,"users":[]}"#, "role must be broadcaster or audience"),
        (#"{"type":"joined","channel":"c","uid":1,"role":"audience","expiresAt":1,"users":[7]}"#, "each of users is an object, not a number"),
        (#"{"type":"joined","channel":"c","uid":1,"role":"audience","expiresAt":1}"#, "users must be an array"),
        (#"{"type":"tokenPrivilegeWillExpire","expiresAt":"soon"}"#, "expiresAt must be a whole number 0...4294967295, not a string"),
        (#"{"type":"userOffline","uid":1,"reason":"kicked","reasonCode":7}"#,
         "reasonCode 7 is not one of Agora's AgoraUserOfflineReason values that this client knows (quit (0), dropped (1), becomeAudience (2))"),
        (#"{"type":"userOffline","uid":1,"reason":"quit","reasonCode":1}"#, #"reason "quit" does not name reasonCode 1, which is dropped"#),
        (#"{"type":"renewTokenResult","result":"later","resultCode":42}"#, "resultCode 42 is not one of Agora's AgoraRenewTokenErrorCode values"),
        (#"{"type":"clientRoleChanged","oldRole":"broadcaster","newRole":"host"}"#, "newRole must be broadcaster or audience"),
        (#"{"type":"connectionStateChanged","state":"gone","stateCode":6,"reason":"lost","reasonCode":16}"#,
         "stateCode 6 is not one of Agora's AgoraConnectionState values"),
        (#"{"type":"connectionStateChanged","state":"failed","stateCode":5,"reason":"x","reasonCode":23}"#,
         "reasonCode 23 is not one of Agora's AgoraConnectionChangedReason values"),
        (#"{"type":"connectionStateChanged","state":"failed","stateCode":5,"reason":"tokenExpired","reasonCode":9,"error":"x","errorCode":999}"#,
         "errorCode 999 is not one of Agora's AgoraErrorCode values"),
        (#"{"type":"userMedia","uid":1,"audio":"loud","video":"on"}"#, #"audio must be one of off, on, muted, not "loud""#),
        (#"{"type":"userMedia","uid":1,"audio":"on"}"#, "audio and video go together"),
        (#"[1]"#, "a notice is a JSON object, not an array"),
        ("{", "not JSON"),
    ])
    func aNoticeTheHubDoesNotSendIsRefusedNamingWhatIsWrong(_ text: String, _ expected: String) {
        #expect(throws: HubProtocolError.self) { try HubNotice(json: text) }
        do { _ = try HubNotice(json: text) } catch { #expect(error.description.contains(expected), "\(error)") }
    }
}
