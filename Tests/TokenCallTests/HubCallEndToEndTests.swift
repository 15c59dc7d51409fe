import AccessToken
@testable import CallScreen
import ChannelEngine
import Foundation
import TestSupport
import Testing

/// The issue's Done-when: `tokencall` processes meeting on one `tokencall serve`'s hub.
@Suite struct HubCallEndToEndTests {
    /// A token of the served App ID, made now, for a user who pastes it (`--token`) and so cannot renew it.
    func pasted(channel: String, uid: UInt32, lifetime: UInt32) throws -> String {
        try AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, channel: channel,
                                  user: .uid(uid), role: .publisher, tokenExpire: lifetime, privilegeExpire: lifetime)
    }

    /// The colours uid's synthetic camera puts on a 256-colour screen, whatever the moment.
    func screenColours(ofUid uid: UInt) -> Set<String> {
        var colours = Set<String>()
        for tenth in 0..<100 {
            let frame = VideoFrameSource(uid: uid).frame(at: .milliseconds(Int64(tenth) * 100), width: 32, height: 18)
            for pixel in frame.pixels {
                colours.insert(TerminalPalette.colors(of: CellStyle(foreground: ScreenRenderer.color(pixel, 256))).foreground.hex)
            }
        }
        return colours
    }

    @Test func twoProcessesSeeEachOtherAndTheirVideoAndAnExpiredOrForeignTokenIsShutOut() throws {
        let (server, _, base, _) = try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate,
                                                             ["--quiet"])
        defer { server.terminate(); server.waitUntilExit() }
        let port = try #require(base.port)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = ["PATH": "/usr/bin:/bin"]
        func join(uid: UInt32, duration: Int, _ extra: [String]) throws -> (Process, Pipe, Pipe) {
            try TokenCallProcess.start(["join", "--hub", "ws://127.0.0.1:\(port)/hub", "--channel", "standup", "--uid", "\(uid)",
                                        "--remote-users", "0", "--duration", "\(duration)"] + extra, environment: environment)
        }
        let fetched = ["--token-url", "http://127.0.0.1:\(port)/fetch_rtc_token"]

        let (alice, aliceOut, _) = try join(uid: 1, duration: 14, fetched + ["--json"])
        var aliceSaw = TokenCallProcess.read(aliceOut, until: #""event": "didJoinChannel""#)
        try #require(aliceSaw.contains(#""event": "didJoinChannel""#), "alice did not get in: \(aliceSaw)")
        let picture = directory.appendingPathComponent("bob.svg"), record = directory.appendingPathComponent("bob.jsonl")
        let (bob, _, bobErr) = try join(uid: 2, duration: 6, fetched + ["--screenshot", picture.path, "--record", record.path])
        // Carol pastes a 6 s token and no token server: nobody renews it, so the hub puts her out when it ends.
        let (carol, carolOut, _) = try join(uid: 3, duration: 10, ["--token", try pasted(channel: "standup", uid: 3, lifetime: 6), "--json"])
        // Mallory holds a good token for another channel.
        let (mallory, malloryOut, _) = try join(uid: 4, duration: 3, ["--token", try pasted(channel: "other", uid: 4, lifetime: 600),
                                                                      "--json"])
        for process in [bob, carol, mallory, alice] { process.waitUntilExit() }
        aliceSaw += String(decoding: aliceOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)

        #expect(alice.terminationStatus == 0, "\(aliceSaw)")
        for seen in [#""event": "didJoinedOfUid", "uid": 2"#, #""event": "firstRemoteVideoFrame", "uid": 2"#,
                     #""event": "didJoinedOfUid", "uid": 3"#, #""event": "didOfflineOfUid", "uid": 3, "reason": "quit""#] {
            #expect(aliceSaw.contains(seen), "alice did not see \(seen): \(aliceSaw)")
        }
        #expect(!aliceSaw.contains(#""uid": 4"#), "the token for another channel got mallory in: \(aliceSaw)")

        let bobSaw = try String(contentsOf: record, encoding: .utf8)
        #expect(bob.terminationStatus == 0, "\(String(decoding: bobErr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
        for seen in [#""event": "didJoinedOfUid", "uid": 1"#, #""event": "firstRemoteVideoFrame", "uid": 1"#] {
            #expect(bobSaw.contains(seen), "bob did not see \(seen)")
        }
        // Alice's tile on Bob's screen shows the colours of her camera, which only her picture has.
        let svg = try String(contentsOf: picture, encoding: .utf8)
        let hers = screenColours(ofUid: 1).subtracting(screenColours(ofUid: 2))
        #expect(hers.contains { svg.contains(#"fill="\#($0)""#) }, "no colour of alice's video in bob's picture")
        #expect(svg.contains("uid 1"))

        let carolSaw = String(decoding: carolOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(carolSaw.contains(#""event": "didJoinChannel""#), "\(carolSaw)")
        #expect(carolSaw.contains(#""event": "requestToken""#), "\(carolSaw)")
        #expect(carolSaw.contains(#""state": "failed", "reason": "tokenExpired""#), "\(carolSaw)")

        let mallorySaw = String(decoding: malloryOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(mallorySaw.contains(#""state": "disconnected", "reason": "invalidToken""#), "\(mallorySaw)")
        #expect(!mallorySaw.contains("didJoinedOfUid"))
        #expect(mallory.terminationStatus == 1)
    }
}

/// `join --hub`'s usage errors: each says what is wrong and what to do, before anything runs.
@Suite struct JoinHubOptionTests {
    @Test(arguments: [
        (["--hub", "wss://127.0.0.1:8082"], "the path is missing"),
        (["--hub", "127.0.0.1:8082"], "a hub address is ws://HOST:PORT/PATH"),
        (["--hub", "ws://127.0.0.1:8082/hub", "--app-id", TestCredentials.appID, "--app-certificate", TestCredentials.certificate,
          "--speed", "60"], "--speed cannot run with --hub"),
        (["--hub", "ws://127.0.0.1:8082/hub"], "--hub with the embedded token server needs the hub's --app-id and --app-certificate"),
    ])
    func aBadHubOrOneThatCannotWorkIsAUsageError(arguments: [String], words: String) throws {
        let result = try TokenCallProcess.run(["join", "--headless", "--duration", "1"] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(words), "\(result.stderr)")
    }

    @Test func theHubComesFromTheEnvironmentToo() throws {
        let result = try TokenCallProcess.run(["join", "--headless", "--duration", "1"], environment: ["TOKENCALL_HUB": "wss://hub"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("TOKENCALL_HUB") && result.stderr.contains("the path is missing"), "\(result.stderr)")
    }
}
