import AccessToken
import Foundation
import HubProtocol
import Synchronization
import TestSupport
import Testing
import WebSocket

/// What a running process writes to a pipe, read on a thread of its own so that the process never blocks on a full
/// pipe: the first `keep` bytes and the last.
final class PipeDrain: Sendable {
    private let state = Mutex<(head: [UInt8], tail: [UInt8], ended: Bool)>(([], [], false))

    /// Keeps the first `keep` bytes and the last `keep`.
    init(_ pipe: Pipe, keep: Int = 1 << 20) {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                state.withLock { state in
                    if chunk.isEmpty { state.ended = true }
                    let room = max(0, keep - state.head.count)
                    state.head += chunk.prefix(room)
                    state.tail += chunk.dropFirst(room)
                    if state.tail.count > 2 * keep { state.tail.removeFirst(state.tail.count - keep) }
                }
                if chunk.isEmpty { return }
            }
        }
    }

    /// What was kept: the first bytes, and the last ones when there were more.
    var text: String {
        let (head, tail) = state.withLock { ($0.head, $0.tail) }
        return String(decoding: head, as: UTF8.self) + (tail.isEmpty ? "" : "\n…\n" + String(decoding: tail.suffix(head.count), as: UTF8.self))
    }

    /// Waits up to `limit` for `words` to show in what was kept; whether they did.
    func wait(for words: String, upTo limit: Duration) -> Bool {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            if text.contains(words) { return true }
            if state.withLock({ $0.ended }) { return false }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return text.contains(words)
    }
}

extension Process {
    /// Waits up to `limit` for the process to end; how long it took, nil when it is still running (then it is killed).
    func exitTime(within limit: Duration) -> Duration? {
        let started = ContinuousClock.now
        while isRunning, ContinuousClock.now - started < limit { Thread.sleep(forTimeInterval: 0.01) }
        guard !isRunning else {
            kill(processIdentifier, SIGKILL)
            waitUntilExit()
            return nil
        }
        return ContinuousClock.now - started
    }

    /// The resident set of the running process, from /proc/PID/status's VmRSS, in bytes.
    var residentBytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.dropFirst("VmRSS:".count).filter(\.isNumber)) else { return nil }
        return kilobytes * 1024
    }
}

/// Issue 19, items 1, 2 and 11 as a user meets them: `tokencall join --hub` processes against a real hub, a peer that
/// sends video that does not add up, and hubs that announce too many users or flood notices.
@Suite struct HubClientHardeningTests {
    static let appID = TestCredentials.appID

    static func token(channel: String = "test", uid: UInt32, lifetime: UInt32 = 600) throws -> String {
        try AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, channel: channel,
                                  user: .uid(uid), role: .publisher, tokenExpire: lifetime, privilegeExpire: lifetime)
    }

    static func serve(_ extra: [String] = []) throws -> (Process, UInt16) {
        let (server, _, base, _) = try TokenCallProcess.serve(appID: appID, certificate: TestCredentials.certificate, ["--quiet"] + extra)
        return (server, UInt16(try #require(base.port)))
    }

    static func join(port: UInt16, uid: UInt32, _ extra: [String]) throws -> (Process, PipeDrain, PipeDrain) {
        let (process, out, err) = try TokenCallProcess.start(
            ["join", "--hub", "ws://127.0.0.1:\(port)/hub", "--uid", "\(uid)", "--remote-users", "0"] + extra,
            environment: ["PATH": "/usr/bin:/bin"])
        return (process, PipeDrain(out), PipeDrain(err))
    }

    static func count(_ words: String, in text: String) -> Int { text.components(separatedBy: words).count - 1 }

    // MARK: Item 1

    /// The issue's frame: a valid header (version 1, uid 0, 32×18) whose one run holds 10 cells, not 576.
    static let unreadableFrame: [UInt8] = [0x01, 0, 0, 0, 0, 0x20, 0x12, 0x0A, 0xFF, 0x00, 0x00]

    @Test func aPeersUnreadableVideoLeavesTheLinkUpAndTheOthersVideoShows() throws {
        let (server, port) = try Self.serve()
        defer { server.terminate(); server.waitUntilExit() }
        let fetched = ["--token-url", "http://127.0.0.1:\(port)/fetch_rtc_token"]
        let (alice, aliceOut, _) = try Self.join(port: port, uid: 1, fetched + ["--duration", "9", "--json"])
        defer { if alice.isRunning { alice.terminate() } }
        #expect(aliceOut.wait(for: #""event": "didJoinChannel""#, upTo: .seconds(20)), "\(aliceOut.text)")
        let (bob, _, _) = try Self.join(port: port, uid: 2, fetched + ["--duration", "14", "--headless"])
        defer { if bob.isRunning { bob.terminate() } }

        // Mallory is a member in good standing whose camera sends frames that do not add up, ten a second.
        let mallory = try WebSocketTestClient.open(port: port)
        mallory.send(text: HubRequest.join(HubJoin(channel: "test", user: .uid(3), token: try Self.token(uid: 3))).json)
        let joined = try mallory.nextText()
        #expect(joined?.contains(#""type":"joined""#) == true, "\(joined ?? "nothing")")
        let done = Atomic(false)
        let reading = OwnedThreads()
        defer {
            done.store(true, ordering: .relaxed)
            reading.joinAll()
        }
        reading.start { while !done.load(ordering: .relaxed), (try? mallory.next()) != nil {} }  // what the hub sends her
        #expect(aliceOut.wait(for: #""event": "firstRemoteVideoFrame", "uid": 2"#, upTo: .seconds(20)), "\(aliceOut.text)")
        for _ in 0..<50 {
            mallory.send(binary: Self.unreadableFrame)
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(alice.exitTime(within: .seconds(30)) != nil)
        done.store(true, ordering: .relaxed)
        mallory.sendClose()

        let saw = aliceOut.text
        #expect(alice.terminationStatus == 0, "\(saw)")
        #expect(saw.contains(#""event": "didJoinedOfUid", "uid": 3"#), "\(saw)")
        #expect(Self.count(#""notice": "hubLost""#, in: saw) == 0, "another user's frame broke alice's link: \(saw)")
        #expect(Self.count(#""notice": "hubConnected""#, in: saw) == 1, "\(saw)")
        #expect(Self.count(#""event": "didJoinedOfUid", "uid": 2"#, in: saw) == 1, "bob was announced again: \(saw)")
        // Bob's video went on beside Mallory's frames: never stopped, and playing at the end.
        #expect(!saw.contains(#""event": "remoteVideoStateChanged", "uid": 2, "state": "stopped""#), "\(saw)")
        let bobsStates = saw.components(separatedBy: #""event": "remoteVideoStateChanged", "uid": 2, "state": ""#).dropFirst()
        #expect(bobsStates.last?.hasPrefix("decoding") == true, "\(saw)")
    }

    // MARK: Item 2

    /// The most a `join --hub` process (the debug build) may hold while a hostile hub announces 60,000 users or floods
    /// it: its own size (38 MiB measured: the Swift runtime, Foundation, the call) with room for reading one 1 MiB
    /// message into JSON (52 MiB measured with the 60,000). Under the flood the old code grew past it, 81 MiB at 10 s and
    /// 162 MiB at 15 s, which is why the flood is watched for 15 s. `Docs/hub-protocol.md`, "Clients", states the same.
    static let residentLimit = 80 << 20

    /// A notice of each kind a hub sends while a client is in its channel, for uids counting up from `first`: who
    /// joins and leaves, roles, warnings and errors, none of which ends the call.
    static func flood(from first: UInt32, count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for index in 0..<UInt32(count) {
            let uid = first + index
            let notices: [HubNotice] = [
                .userJoined(HubPeer(uid: uid, account: nil)),
                .clientRoleChanged(old: index % 2 == 0 ? .broadcaster : .audience, new: index % 2 == 0 ? .audience : .broadcaster),
                .tokenPrivilegeWillExpire(expiresAt: 1_900_000_000),
                .error("flood \(index)"),
                .userOffline(uid: uid - 1, reason: .quit),
            ]
            for notice in notices { bytes += WebSocketFrame.encode(.text, Array(notice.json.utf8)) }
        }
        return bytes
    }

    /// A hub that lets the client in with `users` announced, then floods it with notices until it leaves.
    static func hostileHub(users: Int) throws -> HostileServer {
        let users = (1...UInt32(users)).map { HubPeer(uid: 100 + $0, account: nil) }
        let joined = WebSocketFrame.encode(.text, Array(HubNotice.joined(channel: "test", uid: 42, role: .broadcaster,
                                                                         expiresAt: 1_900_000_000, users: users).json.utf8))
        let flood = flood(from: 1_000_000, count: 2000)
        return try HostileServer { connection in
            guard connection.acceptWebSocket() else { return }
            _ = connection.read(upTo: .seconds(10)) { !$0.isEmpty }  // the join
            guard connection.write(joined) else { return }
            let end = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < end, connection.write(flood) {}
        }
    }

    /// `join --hub` on the hostile hub, with `extra` options: the hub, still flooding, for the test to stop when it
    /// ends; the join process, its output, its largest resident size over the first `watch` of the flood, and when it
    /// was started (after the hub was built).
    static func joinHostileHub(users: Int, watch: Duration, _ extra: [String]) throws
        -> (HostileServer, Process, PipeDrain, Int, ContinuousClock.Instant)
    {
        let hub = try hostileHub(users: users)
        let launched = ContinuousClock.now
        let (process, out, _) = try TokenCallProcess.start(
            ["join", "--hub", "ws://127.0.0.1:\(hub.port)/hub", "--token", try token(uid: 42), "--uid", "42", "--remote-users", "0",
             "--json"] + extra, environment: ["PATH": "/usr/bin:/bin"])
        let drain = PipeDrain(out, keep: 64 << 10)
        var largest = 0
        let end = ContinuousClock.now + watch
        while ContinuousClock.now < end, process.isRunning {
            largest = max(largest, process.residentBytes ?? 0)
            Thread.sleep(forTimeInterval: 0.05)
        }
        return (hub, process, drain, largest, launched)
    }

    @Test(arguments: [60_000, 3])
    func aHostileHubNeitherGrowsJoinNorKeepsItFromStoppingOnSIGTERM(users: Int) throws {
        let (hub, process, out, largest, _) = try Self.joinHostileHub(users: users, watch: .seconds(15), [])
        defer { hub.stop() }
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        #expect(process.isRunning, "it ended by itself: \(out.text.suffix(2000))")
        #expect(largest > 0 && largest <= Self.residentLimit, "\(largest >> 20) MiB, over \(Self.residentLimit >> 20)")
        kill(process.processIdentifier, SIGTERM)
        // The issue asks for within a second; two busy cores get twice that. The old code ran on for minutes.
        let took = process.exitTime(within: .seconds(2))
        #expect(took != nil, "still running 2 s after SIGTERM: \(out.text.suffix(2000))")
        #expect(out.text.contains(#""event": "didJoinChannel""#), "\(out.text.prefix(2000))")
    }

    @Test func aHostileHubDoesNotKeepJoinPastItsDuration() throws {
        // Counted from the process's start: building a 60 000-user listing is the test's own cost.
        let (hub, process, out, largest, started) = try Self.joinHostileHub(users: 60_000, watch: .seconds(10), ["--duration", "3"])
        defer { hub.stop() }
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let took = process.exitTime(within: .seconds(1)).map { _ in ContinuousClock.now - started }
        // 3 s of call, the process's start and its leave: well under 6 s; the old code ran on for minutes.
        #expect(took.map { $0 < .seconds(6) } == true, "\(took.map { "\($0)" } ?? "still running") after start")
        #expect(largest <= Self.residentLimit, "\(largest >> 20) MiB")
        #expect(out.text.contains(#""event": "sessionEnded""#), "\(out.text.suffix(2000))")
    }

    // MARK: Item 11

    @Test func aRenewalThroughTheHubIsTokenRenewedWhicheverWayItRenews() throws {
        // 34 s tokens: the hub warns 30 s before their end, 4 s in.
        let (server, port) = try Self.serve(["--token-lifetime", "34"])
        defer { server.terminate(); server.waitUntilExit() }
        let fetched = ["--token-url", "http://127.0.0.1:\(port)/fetch_rtc_token", "--duration", "9", "--json"]
        let (renews, renewsOut, _) = try Self.join(port: port, uid: 1, fetched + ["--renew-method", "renew"])
        let (updates, updatesOut, _) = try Self.join(port: port, uid: 2, fetched + ["--renew-method", "update"])
        for process in [renews, updates] { #expect(process.exitTime(within: .seconds(30)) != nil) }

        let renewed = renewsOut.text, updated = updatesOut.text
        #expect(renewed.contains(#""event": "renewTokenResult", "code": "success""#), "\(renewed)")
        #expect(renewed.contains(#""event": "tokenRenewed", "method": "renew""#), "\(renewed)")
        #expect(updated.contains(#""event": "tokenRenewed", "method": "update""#), "\(updated)")
        for saw in [renewed, updated] {
            #expect(!saw.contains("requestToken"), "the renewal was lost: \(saw)")
        }
    }
}
