import AccessToken
import Foundation
import JSON
import TestSupport
import Testing

/// `Deploy/haproxy.cfg` in front of three hubs, as `Docs/deploy.md` describes: routing by channel, and with Redis one
/// owner per channel through a hub's death. Needs Debian's haproxy and redis-server (`make deps`).
@Suite(.serialized, .enabled(if: HubFarm.available, "needs haproxy and redis-server: make deps"))
struct ScaleOutTests {
    func token(channel: String, uid: UInt32) throws -> String {
        try AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, channel: channel,
                                  user: .uid(uid), role: .publisher, tokenExpire: 600, privilegeExpire: 600)
    }

    func notice(_ client: WebSocketTestClient) throws -> [String: JSONValue]? {
        try client.nextText().flatMap { JSONValue.parse(Array($0.utf8))?.object }
    }

    @Test func theBalancerSendsEveryClientOfAChannelToOneHub() async throws {
        try await onOwnThread { try self.theBalancerSendsEveryClientOfAChannelToOneHubBlocking() }
    }

    func theBalancerSendsEveryClientOfAChannelToOneHubBlocking() throws {
        let farm = try HubFarm(redis: false)
        // Hubs share nothing without Redis: two clients see each other only on the same hub.
        for channel in (0..<6).map({ "room\($0)" }) {
            var members: [WebSocketTestClient] = []
            for uid in UInt32(1)...3 {
                let client = try WebSocketTestClient.open(port: farm.proxyPort, path: "/hub?channel=\(channel)")
                client.send(text: #"{"type":"join","channel":"\#(channel)","uid":\#(uid),"token":"\#(try token(channel: channel, uid: uid))"}"#)
                let joined = try #require(try notice(client))
                #expect(joined["type"]?.string == "joined", "\(joined)")
                guard case .array(let users)? = joined["users"] else { Issue.record("\(joined)"); continue }
                let present = users.compactMap { user -> Int64? in if case .integer(let uid)? = user.object?["uid"] { uid } else { nil } }
                #expect(present == (1..<Int64(uid)).map { $0 }, "\(channel): uid \(uid) landed on a hub without the others")
                members.append(client)
            }
        }
        // `tokencall load` through the balancer: its clients' channels spread over the hubs, its figures by hub.
        let load = try TokenCallProcess.run(["load", "--hub", "ws://127.0.0.1:\(farm.proxyPort)/hub",
                                             "--token-url", "http://127.0.0.1:\(farm.proxyPort)/fetch_rtc_token",
                                             "--clients", "24", "--channels", "12", "--duration", "3", "--json"], limit: .seconds(60))
        let figures = try #require(JSONValue.parse(Array(load.stdout.utf8))?.object, "\(load.stdout)\n\(load.stderr)")
        guard case .object(let byHub)? = figures["joinsByHub"] else { Issue.record("no joinsByHub: \(load.stdout)"); return }
        #expect(Set(byHub.keys).isSubset(of: ["hub1", "hub2", "hub3"]) && byHub.count >= 2, "\(byHub.keys)")
        let joins = byHub.values.compactMap { value -> Int64? in if case .integer(let count)? = value.object?["count"] { count } else { nil } }
        #expect(joins.reduce(0, +) == 24, "\(load.stdout)")
        // The token routes go round to every hub.
        let (data, _) = try Self.get("http://127.0.0.1:\(farm.proxyPort)/ping")
        #expect(String(decoding: data, as: UTF8.self).contains("pong"))
    }

    static func get(_ url: String) throws -> (Data, Int) {
        let socket = try #require(Loopback.connect(port: UInt16(URL(string: url)!.port!)))
        defer { close(socket) }
        let request = "GET \(URL(string: url)!.path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        _ = request.withCString { send(socket, $0, strlen($0), 0) }
        var answer = [UInt8](), buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            answer += buffer[..<count]
        }
        let text = String(decoding: answer, as: UTF8.self)
        return (Data(answer), Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0)
    }

    /// A `tokencall join` client in the farm and what it printed.
    struct Member {
        let channel: String
        let uid: UInt32
        let output: HubFarm.Output
        var peer: UInt32 { uid == 1 ? 2 : 1 }

        /// Its event lines, from the `from`th on.
        func events(from: Int = 0) -> [String] {
            Array(output.all.split(separator: "\n").dropFirst(from).map(String.init))
        }

        func saw(_ event: String, _ extra: String = "", from: Int = 0) -> Bool {
            events(from: from).contains { $0.contains(#""event": "\#(event)""#) && (extra.isEmpty || $0.contains(extra)) }
        }

    }

    /// The issue's Done-when: three hubs behind HAProxy sharing one Redis; the owner of a channel killed or stopped, ten
    /// times: each time its clients are together on one hub within 30 s and no client sees anyone leave and come back.
    /// Killed (SIGKILL) in even rounds: its leases lapse. Stopped (SIGTERM) in odd ones: it gives them back and says
    /// 1001, and its clients are back within `promptReturn`.
    @Test func whenAChannelsHubIsKilledItsClientsMeetAgainOnOneHubWithoutABlip() async throws {
        try await onOwnThread { try self.whenAChannelsHubIsKilledItsClientsMeetAgainOnOneHubWithoutABlipBlocking() }
    }

    func whenAChannelsHubIsKilledItsClientsMeetAgainOnOneHubWithoutABlipBlocking() throws {
        let farm = try HubFarm(redis: true)
        let channels = ["alpha", "bravo", "charlie"]
        var members: [Member] = []
        for channel in channels {
            for uid in UInt32(1)...2 {
                let (_, output) = try farm.join(channel: channel, uid: uid, seconds: 600)
                members.append(Member(channel: channel, uid: uid, output: output))
            }
        }
        try Self.wait(60, "every client sees its peer's video") { members.allSatisfy { $0.saw("firstRemoteVideoFrame", #""uid": \#($0.peer)"#) } }

        let start = members.map { $0.events().count }
        for round in 0..<10 {
            let signal = round.isMultiple(of: 2) ? SIGKILL : SIGTERM
            let target = channels[round % channels.count]
            let victim = try #require(try farm.owner(of: target), "round \(round): nobody holds \(target)")
            let moved = try channels.filter { try farm.owner(of: $0) == victim }
            let marks = members.map { $0.events().count }
            let logMarks = farm.logMarks
            let stopped = ContinuousClock.now
            farm.stopHub(victim, signal: signal)
            let how = signal == SIGKILL ? "was killed" : "stopped (SIGTERM)"
            let story = { zip(members, marks).filter { moved.contains($0.0.channel) }
                .map { "\($0.0.channel) uid \($0.0.uid):\n" + $0.0.events(from: $0.1).suffix(30).joined(separator: "\n") }.joined(separator: "\n") }
            try Self.wait(30, "round \(round): the clients of \(moved) together again after hub \(victim + 1) \(how)", story) {
                zip(members, marks).allSatisfy { member, mark in !moved.contains(member.channel) || member.saw("didRejoinChannel", from: mark) }
            }
            let back = ContinuousClock.now - stopped
            if signal == SIGTERM {
                #expect(back < Self.promptReturn, "round \(round): the clients of \(moved) back \(back) after hub \(victim + 1) \(how):\n\(story())")
                for (member, mark) in zip(members, marks) where moved.contains(member.channel) {
                    #expect(member.events(from: mark).contains { $0.contains(#""notice": "hubLost""#) && $0.contains("closed the connection with 1001") },
                            "round \(round): \(member.channel) uid \(member.uid) was not told 1001:\n\(story())")
                }
            }
            for channel in moved {
                let hubs = (UInt32(1)...2).map { farm.hubWhereLastJoined(channel, uid: $0, since: logMarks) }
                #expect(hubs[0] != nil && hubs[0] != -1 && hubs[0] == hubs[1], "round \(round): \(channel) joined again on hubs \(hubs)")
            }
            for (member, mark) in zip(members, marks) {
                let seen = member.events(from: mark).joined(separator: "\n")
                #expect(!member.saw("didOfflineOfUid", from: mark), "round \(round): \(member.channel) uid \(member.uid) saw a blip:\n\(seen)")
                #expect(!member.saw("didJoinedOfUid", from: mark), "round \(round): \(member.channel) uid \(member.uid) saw a blip:\n\(seen)")
                if !moved.contains(member.channel) {
                    #expect(!member.saw("connectionStateChanged", from: mark), "round \(round): \(member.channel) was disturbed:\n\(seen)")
                }
            }
            for channel in moved {
                let owner = try farm.owner(of: channel)
                #expect(owner != nil && owner != victim, "round \(round): \(channel) is held by \(owner.map { "hub \($0 + 1)" } ?? "nobody")")
            }
            try farm.startHub(victim)
        }
        // A blip that came after its round was looked at (while the hub started again) is a blip all the same.
        for (member, mark) in zip(members, start) {
            #expect(!member.saw("didOfflineOfUid", from: mark) && !member.saw("didJoinedOfUid", from: mark),
                    "\(member.channel) uid \(member.uid) saw a blip:\n\(member.events(from: mark).joined(separator: "\n"))")
        }
    }

    /// How soon a stopped hub's clients are back: under the 3 s a killed hub's leases take to lapse (the SIGKILL rounds
    /// take 5–7 s), so it shows the leases were given back; 0.05–0.16 s measured, the rest is room for two busy cores.
    static let promptReturn = Duration.seconds(2)

    /// Polls `done` every 100 ms for up to `seconds`.
    static func wait(_ seconds: Int, _ what: String, _ story: () -> String = { "" }, _ done: () throws -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try done() { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        Issue.record("not within \(seconds) s: \(what)\n\(story())")
        throw FarmError(description: what)
    }
}
