import AccessToken
import Foundation
import HubServer
import RedisClient
import TestSupport
import Testing
import TokenServer
import WebSocket

/// The hub with its leases in a real `redis-server` (`serve --redis`), reached through `DelayingProxy`.
@Suite(.serialized, .enabled(if: RedisServerProcess.available, "needs redis-server: make deps"))
struct HubRedisTests {
    static let hubAddress = "ws://127.0.0.1:1/hub"

    /// A hub on 127.0.0.1 whose leases are kept in the Redis at `redisPort`, on the real time.
    static func server(redisPort: UInt16, log: ServerLog, deadline: Duration = .seconds(1)) throws -> TokenServer {
        var hubConfig = HubServer.Configuration(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                                 unixTime: { Date().timeIntervalSince1970 })
        let redis = try RedisAddress(parsing: "redis://127.0.0.1:\(redisPort)")
        hubConfig.leases = { RedisLeases(redis: redis, hubAddress: hubAddress, deadline: deadline) }
        var config = TokenServerConfig(port: 0, appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                       maxConnections: 400, log: { line in log.lines.withLock { $0.append(line) } })
        config.maxConnectionsPerAddress = 400
        config.webSocket = HubServer.endpoint(hubConfig)
        return try TokenServer(config)
    }

    static func joinRequest(channel: String, uid: UInt32) throws -> String {
        let token = try AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                              channel: channel, user: .uid(uid), role: .publisher, tokenExpire: 600, privilegeExpire: 600)
        return #"{"type":"join","channel":"\#(channel)","uid":\#(uid),"token":"\#(token)"}"#
    }

    /// What `redis-cli` prints for a command to the Redis at `port`, trimmed.
    static func redisCLI(port: UInt16, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        process.arguments = ["-p", "\(port)"] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Issue 31, item 4: with Redis 100 ms away each way, 150 joins to new channels at once wait for their claims while
    /// the hub keeps serving: a member's ping→pong stays under 100 ms all along, every joiner gets in, no lease lapses.
    @Test func aSlowRedisStallsNobodyWhileJoinsWaitForTheirClaims() throws {
        let redis = try RedisServerProcess()
        let proxy = try DelayingProxy(to: redis.port, delay: .milliseconds(100))
        defer { proxy.stop() }
        let log = ServerLog()
        let server = try Self.server(redisPort: proxy.port, log: log)
        defer { server.stop() }

        let member = try WebSocketTestClient.open(port: server.port, path: "/hub?channel=steady")
        member.send(text: try Self.joinRequest(channel: "steady", uid: 1))
        #expect(try member.notice()?.type == "joined")
        let joiners = try (0..<150).map { _ in try WebSocketTestClient.open(port: server.port) }
        for (index, joiner) in joiners.enumerated() { joiner.send(text: try Self.joinRequest(channel: "new\(index)", uid: 2)) }

        // Over three renewals (one a second) and the claims' answers: p99 as the issue measured it (1–5 ms measured
        // alone; a test beside it on two busy cores can hold the thread back once), and never a stall.
        var rounds: [Duration] = []
        let end = ContinuousClock.now + .milliseconds(3500)
        while ContinuousClock.now < end {
            let sent = ContinuousClock.now
            member.send(raw: WebSocketFrame.encode(.ping, Array("honest".utf8), mask: (1, 2, 3, 4)))
            guard case .pong? = try member.next() else { Issue.record("no pong from the hub"); break }
            rounds.append(.now - sent)
            Thread.sleep(forTimeInterval: 0.02)  // a ping every 20 ms or so, not a wait for anything
        }
        rounds.sort()
        let p99 = rounds.isEmpty ? .seconds(10) : rounds[(rounds.count * 99) / 100]
        #expect(p99 < .milliseconds(100), "p99 of \(rounds.count) pings: \(p99)")
        #expect((rounds.last ?? .zero) < .seconds(1), "the slowest ping took \(rounds.last ?? .zero)")
        var joined = 0
        for joiner in joiners where try joiner.notice()?.type == "joined" { joined += 1 }
        #expect(joined == 150)
        let lines = log.lines.withLock { $0 }
        #expect(!lines.contains { $0.contains("lost the lease") || $0.contains("could not renew") }, "\(lines.suffix(20))")
        #expect(try Self.redisCLI(port: redis.port, ["DBSIZE"]) == "151", "every channel's lease is held")
        #expect(try Self.redisCLI(port: redis.port, ["GET", "tokencall:channel:steady"]) == Self.hubAddress)
    }

    /// A stopping hub gives its leases back (its loop turning while Redis answers), then its clients hear 1001: they
    /// find their channels free wherever they reconnect.
    @Test func aStoppingHubGivesItsLeasesBackThenSays1001() throws {
        let redis = try RedisServerProcess()
        let server = try Self.server(redisPort: redis.port, log: ServerLog())
        let member = try WebSocketTestClient.open(port: server.port, path: "/hub?channel=call")
        member.send(text: try Self.joinRequest(channel: "call", uid: 1))
        #expect(try member.notice()?.type == "joined")
        #expect(try Self.redisCLI(port: redis.port, ["GET", "tokencall:channel:call"]) == Self.hubAddress)
        server.stop()
        #expect(try Self.redisCLI(port: redis.port, ["EXISTS", "tokencall:channel:call"]) == "0", "the lease was given back")
        #expect(try member.closeFrame()?.code == .goingAway)
    }

    /// A Redis that answers nothing (stopped) holds a hub's stop up half a second at most; its clients hear 1001.
    @Test func aRedisThatDoesNotAnswerHoldsTheStopUpHalfASecondAtMost() throws {
        let redis = try RedisServerProcess()
        let server = try Self.server(redisPort: redis.port, log: ServerLog(), deadline: .seconds(5))
        let member = try WebSocketTestClient.open(port: server.port, path: "/hub?channel=call")
        member.send(text: try Self.joinRequest(channel: "call", uid: 1))
        #expect(try member.notice()?.type == "joined")
        redis.pause()
        let began = ContinuousClock.now
        server.stop()
        let took = ContinuousClock.now - began
        #expect(took >= .milliseconds(500) && took < .milliseconds(900), "the stop took \(took)")
        #expect(try member.closeFrame()?.code == .goingAway)
    }

    /// Issue 31, item 10: Redis killed mid-call and started again empty, before the hub's leases would lapse. The hub
    /// takes its channel's key again at the next renewal; its members are not put out (before, the renewal found the
    /// key gone, took the channel for another hub's and closed every member with 1001).
    @Test func aRedisRestartedEmptyGetsTheHeldLeasesBackAndTheMembersStay() throws {
        var redis: RedisServerProcess? = try RedisServerProcess()
        let port = try #require(redis?.port)
        let log = ServerLog()
        let server = try Self.server(redisPort: port, log: log)
        defer { server.stop() }
        let member = try WebSocketTestClient.open(port: server.port, path: "/hub?channel=call")
        member.send(text: try Self.joinRequest(channel: "call", uid: 1))
        #expect(try member.notice()?.type == "joined")

        redis = nil  // killed
        redis = try RedisServerProcess(port: port)
        #expect(try Self.redisCLI(port: port, ["DBSIZE"]) == "0", "started again empty")
        let deadline = ContinuousClock.now + .seconds(5)
        while try Self.redisCLI(port: port, ["GET", "tokencall:channel:call"]) != Self.hubAddress, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(try Self.redisCLI(port: port, ["GET", "tokencall:channel:call"]) == Self.hubAddress, "the lease is the hub's again")
        member.send(raw: WebSocketFrame.encode(.ping, Array("still there".utf8), mask: (1, 2, 3, 4)))
        #expect(try member.next() == .pong(Array("still there".utf8)), "the member is still in, not closed")
        let lines = log.lines.withLock { $0 }
        #expect(!lines.contains { $0.contains("lost the lease") }, "\(lines.suffix(20))")
    }

    /// A lease the hub holds already in Redis (its previous run's, in its last moments) is extended by the claim itself,
    /// in one exchange: the join waits one round trip, as any claim (within its deadline, here 4 s for Redis 1 s away),
    /// and the lease cannot lapse before the first renewal.
    @Test func aClaimOfALeaseTheHubHoldsAlreadyIsOneExchangeAndExtendsIt() throws {
        let redis = try RedisServerProcess()
        _ = try Self.redisCLI(port: redis.port, ["SET", "tokencall:channel:again", Self.hubAddress, "PX", "5000"])
        let proxy = try DelayingProxy(to: redis.port, delay: .milliseconds(500))
        defer { proxy.stop() }
        let server = try Self.server(redisPort: proxy.port, log: ServerLog(), deadline: .seconds(4))
        defer { server.stop() }
        let member = try WebSocketTestClient.open(port: server.port, path: "/hub?channel=again")
        let asked = ContinuousClock.now
        member.send(text: try Self.joinRequest(channel: "again", uid: 1))
        #expect(try member.notice()?.type == "joined")
        let waited = ContinuousClock.now - asked
        #expect(waited < .milliseconds(1500), "one round trip of 1 s, not two: waited \(waited)")
        let left = Int(try Self.redisCLI(port: redis.port, ["PTTL", "tokencall:channel:again"])) ?? -2
        #expect(left > 1500 && left <= 3000, "the lease's 3 s from the claim: \(left) ms")
    }

    /// A claim Redis cannot answer within its deadline (1 s; Redis 600 ms away each way here) is refused in words
    /// (4503), and the hub goes on serving its members meanwhile.
    @Test func aClaimNotAnsweredInTimeIsRefusedInWordsWhileTheHubServesOthers() throws {
        let redis = try RedisServerProcess()
        let proxy = try DelayingProxy(to: redis.port, delay: .milliseconds(600))
        defer { proxy.stop() }
        let log = ServerLog()
        let server = try Self.server(redisPort: proxy.port, log: log)
        defer { server.stop() }
        let member = try WebSocketTestClient.open(port: server.port)
        let joiner = try WebSocketTestClient.open(port: server.port)
        joiner.send(text: try Self.joinRequest(channel: "far", uid: 2))
        let asked = ContinuousClock.now
        var refused: String?
        while refused == nil, ContinuousClock.now - asked < .seconds(3) {
            let sent = ContinuousClock.now
            member.send(raw: WebSocketFrame.encode(.ping, Array("meanwhile".utf8), mask: (1, 2, 3, 4)))
            guard case .pong? = try member.next() else { Issue.record("no pong from the hub"); break }
            #expect(ContinuousClock.now - sent < .seconds(1), "the hub stalled")
            refused = log.lines.withLock { $0.first { $0.contains("closed 4503") } }
            Thread.sleep(forTimeInterval: 0.05)  // a ping every 50 ms or so, not a wait for anything
        }
        #expect(refused?.hasSuffix("cannot tell who owns far: redis://127.0.0.1:\(proxy.port) did not answer within 1.0 seconds") == true,
                "\(String(describing: refused))")
    }
}
