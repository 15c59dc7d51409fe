import Foundation
import Testing

@Suite struct RecordReplayTests {
    private static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tokencall-\(UUID().uuidString)-\(name)").path
    }

    @Test(arguments: [("--json", "--json"), ("--headless", "--headless")])
    func aReplayPrintsTheRecordedEventsExactlyAsTheJoinDid(joinFlag: String, replayFlag: String) throws {
        let path = Self.temporaryPath("call.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let join = try TokenCallProcess.run(["join", joinFlag, "--duration", "3", "--seed", "5", "--remote-users", "2",
                                             "--token-lifetime", "31", "--record", path])
        #expect(join.status == 0, "\(join.stderr)")
        #expect(join.stdout.contains("tokenPrivilegeWillExpire"), "the recording holds a renewal")
        let replay = try TokenCallProcess.run(["replay", replayFlag, path])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout == join.stdout)
        #expect(!replay.stdout.isEmpty)
    }

    /// A call recorded in Android's words replays in them, and in the Web's when asked (issue 35).
    @Test func aRecordingReplaysInItsSDKOrInAnother() throws {
        let path = Self.temporaryPath("android.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let join = try TokenCallProcess.run(["join", "--headless", "--duration", "3", "--seed", "5", "--remote-users", "0",
                                             "--token-lifetime", "31", "--record", path], environment: ["TOKENCALL_SDK": "android"])
        #expect(join.status == 0, "\(join.stderr)")
        #expect(join.stdout.contains("] onTokenPrivilegeWillExpire\n"), "\(join.stdout)")
        #expect(try TokenCallProcess.run(["replay", "--headless", path]).stdout == join.stdout)
        let web = try TokenCallProcess.run(["replay", "--headless", "--sdk", "web", path])
        #expect(web.status == 0, "\(web.stderr)")
        #expect(web.stdout.contains("] token-privilege-will-expire\n"), "\(web.stdout)")
        #expect(web.stdout.contains("] connection-state-change state=CONNECTED\n"), "\(web.stdout)")
        #expect(!web.stdout.contains("onTokenPrivilegeWillExpire"))
        let json = try TokenCallProcess.run(["replay", "--json", "--sdk", "unity", path])
        #expect(json.stdout.contains(#""event": "OnTokenPrivilegeWillExpire", "ios": "tokenPrivilegeWillExpire"}"#), "\(json.stdout)")
        let wrong = try TokenCallProcess.run(["replay", "--headless", "--sdk", "symbian", path])
        #expect(wrong.status == 64)
        #expect(wrong.stderr.contains("--sdk must be ios, android, web, flutter, react-native, electron or unity, not \"symbian\""), "\(wrong.stderr)")
    }

    @Test func theRecordingStartsWithItsHeaderAndHoldsNoSecret() throws {
        let path = Self.temporaryPath("secret.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let certificate = "5cfd2fd1755d40ecb72977518be15d3b"
        let join = try TokenCallProcess.run(["join", "--json", "--duration", "1", "--seed", "9", "--record", path,
                                             "--app-id", "970CA35de60c44645bbae8a215061b33", "--app-certificate", certificate])
        #expect(join.status == 0, "\(join.stderr)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let header = try #require(text.split(separator: "\n").first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(header.utf8)) as? [String: Any])
        #expect(object["format"] as? String == "tokencall-recording")
        #expect(object["version"] as? Int == 1)
        #expect(object["seed"] as? Int == 9)
        #expect((object["options"] as? [String: String])?["seed"] == "9")
        #expect(!text.contains(certificate))
        #expect(!text.contains("007eJ"), "no token in the file")
    }

    @Test func aFileThatCannotBeCreatedEndsJoinBeforeTheCall() throws {
        let result = try TokenCallProcess.run(["join", "--json", "--duration", "1", "--record", "/nonexistent-folder/call.jsonl"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty, "no call was made")
        #expect(result.stderr == "tokencall join: cannot create /nonexistent-folder/call.jsonl: the folder /nonexistent-folder does not exist\n")
    }

    @Test func anExistingFileIsReplacedOnlyWithOverwrite() throws {
        let path = Self.temporaryPath("kept.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("mine\n".utf8).write(to: URL(fileURLWithPath: path))
        let refused = try TokenCallProcess.run(["join", "--json", "--duration", "1", "--record", path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("already exists (left as it is); give --overwrite"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "mine\n")
        let replaced = try TokenCallProcess.run(["join", "--json", "--duration", "1", "--record", path, "--overwrite"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("{\"format\": \"tokencall-recording\""))
    }

    @Test func aMissingOrCorruptRecordingIsRefusedWithWhereAndWhy() throws {
        let missing = try TokenCallProcess.run(["replay", "--json", "/nonexistent-folder/call.jsonl"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("tokencall replay: cannot open /nonexistent-folder/call.jsonl"))

        let path = Self.temporaryPath("corrupt.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("{\"format\": \"tokencall-recording\", \"version\": 2}\n".utf8).write(to: URL(fileURLWithPath: path))
        let newer = try TokenCallProcess.run(["replay", path])
        #expect(newer.status == 1)
        #expect(newer.stderr.contains("format version 2, newer than the 1 this tokencall reads"))
        #expect(newer.stdout.isEmpty, "the terminal is untouched")

        let noFile = try TokenCallProcess.run(["replay"])
        #expect(noFile.status == 64)
    }
}
