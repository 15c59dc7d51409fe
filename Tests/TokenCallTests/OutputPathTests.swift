import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What `join --record`, `--screenshot` and `--cast` do with a path that names something already (run as root, as the
/// issue's user might): a link is followed, a device stays a device, and a call that does not start leaves it all alone.
@Suite(.serialized) struct OutputPathTests {
    private func kind(_ path: String) -> mode_t? { TemporaryFolder.kind(path) }

    private func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    private func record(_ path: String, _ extra: [String] = []) throws -> TokenCallProcess.Result {
        try TokenCallProcess.run(["join", "--json", "--duration", "1", "--seed", "3", "--record", path] + extra, limit: .seconds(60))
    }

    @Test func aRecordingThroughALinkWritesTheFileItNamesAndKeepsTheLink() throws {
        let folder = try TemporaryFolder()
        let target = try folder.file("calls.jsonl", holding: "mine\n"), link = try folder.file("latest.jsonl")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let refused = try record(link)
        #expect(refused.status == 1 && refused.stderr.contains("\(link) already exists (left as it is); give --overwrite"), "\(refused.stderr)")
        #expect(try text(target) == "mine\n")
        let written = try record(link, ["--overwrite"])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(kind(link) == S_IFLNK, "the link is still a link")
        #expect(try text(target).hasPrefix("{\"format\": \"tokencall-recording\""))
        #expect(try TokenCallProcess.run(["replay", "--json", link]).status == 0)
    }

    @Test func aLinkToNothingIsNeverReplaced() throws {
        let folder = try TemporaryFolder()
        let target = try folder.file("gone.jsonl"), link = try folder.file("latest.jsonl")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let refused = try record(link)
        #expect(refused.status == 1 && refused.stderr.contains("already exists (left as it is)"), "\(refused.stderr)")
        let overwrite = try record(link, ["--overwrite"])
        #expect(overwrite.status == 1)
        #expect(overwrite.stderr == "tokencall join: cannot create \(link): it is a symbolic link to a file that does not exist; "
                + "give the file's own path\n")
        #expect(overwrite.stdout.isEmpty, "no call was made")
        #expect(kind(link) == S_IFLNK && kind(target) == nil)
    }

    @Test func aRecordingIntoADeviceLeavesItADevice() throws {
        let folder = try TemporaryFolder()
        let device = try folder.nullDevice("null")
        let refused = try record(device)
        #expect(refused.status == 1 && refused.stderr.contains("already exists (left as it is)"), "\(refused.stderr)")
        let written = try record(device, ["--overwrite"])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(kind(device) == S_IFCHR)
        #expect(kind("/dev/null") == S_IFCHR)
    }

    /// A call that stops before it starts (here: the recording's folder is missing) removes none of what was there.
    @Test func aFailedStartLeavesThePicturesPathAsItWas() throws {
        let folder = try TemporaryFolder()
        let picture = try folder.file("kept.svg", holding: "precious"), device = try folder.nullDevice("null")
        for path in [picture, device] {
            let result = try TokenCallProcess.run(["join", "--screenshot", path, "--overwrite", "--duration", "1",
                                                   "--record", folder.path + "/missing/call.jsonl"], limit: .seconds(60))
            #expect(result.status == 1)
            #expect(result.stderr.contains("cannot create \(folder.path)/missing/call.jsonl: the folder \(folder.path)/missing does not exist"))
        }
        #expect(try text(picture) == "precious")
        #expect(kind(device) == S_IFCHR)
    }

    /// The call screen cannot start on a terminal it does not know: the cast's and the recording's paths stay as they were.
    @Test func aCallScreenThatCannotStartLeavesTheCastAndTheRecordingAsTheyWere() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is needed; make deps installs it")
        let folder = try TemporaryFolder()
        let cast = try folder.file("kept.cast", holding: "precious cast"), recording = try folder.file("kept.jsonl", holding: "mine\n")
        let device = try folder.nullDevice("null")
        let screen = try TmuxScreen(width: 100, height: 30, command: "TERM=no-such-terminal \(TokenCallProcess.binary.path) --cast \(cast) "
                                    + "--record \(recording) --overwrite --seed 6; echo FIRST=$?; "
                                    + "TERM=no-such-terminal \(TokenCallProcess.binary.path) --cast \(device) --overwrite; echo SECOND=$?; sleep 60")
        screen.waitFor("SECOND=64")
        #expect(screen.screen.contains("FIRST=64"))
        #expect(screen.screen.contains("TERM=no-such-terminal is not a terminal this system knows"))
        #expect(try text(cast) == "precious cast")
        #expect(try text(recording) == "mine\n")
        #expect(kind(device) == S_IFCHR)
    }
}
