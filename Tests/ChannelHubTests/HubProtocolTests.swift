import HubProtocol
import Testing

@Suite struct HubProtocolTests {
    @Test(arguments: [
        HubRequest.join(HubJoin(channel: "standup", user: .uid(4_294_967_295), token: "007eJx", role: .audience)),
        .join(HubJoin(appId: "970CA35de60c44645bbae8a215061b33", channel: "a b", user: .account("ali\"ce\u{1B}"), token: "")),
        .renew(token: "007eJx"),
        .setRole(.broadcaster),
        .leave,
    ])
    func whatAClientWritesTheHubReadsAsTheSameRequest(_ request: HubRequest) throws {
        #expect(try HubRequest(json: request.json) == request)
    }

    @Test func noticesAreWrittenWithAgorasNamesAndNumbers() {
        let offline = HubNotice.userOffline(uid: 7, reason: HubCode(name: "becomeAudience", value: 2))
        #expect(offline.json == #"{"reason":"becomeAudience","reasonCode":2,"type":"userOffline","uid":7}"#)
        let joined = HubNotice.joined(channel: "c", uid: 1, role: .broadcaster, expiresAt: 1_800_000_600,
                                      users: [HubPeer(uid: 2, account: "bob")])
        #expect(joined.json == #"{"channel":"c","expiresAt":1800000600,"role":"broadcaster","type":"joined","uid":1,"users":[{"account":"bob","uid":2}]}"#)
    }
}
