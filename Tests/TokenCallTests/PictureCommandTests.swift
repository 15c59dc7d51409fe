import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// `join --screenshot` and `--cast` as a user runs them: pictures without a terminal, recordings of the screen in tmux.
@Suite(.serialized) struct PictureCommandTests {
    private func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tokencall-\(UUID().uuidString)-\(name)").path
    }

    /// The root element's attributes and every text, read with Foundation's XML parser.
    private final class SVGReader: NSObject, XMLParserDelegate {
        var root: [String: String] = [:]
        var text = ""

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            if name == "svg" { root = attributes }
            if name == "text" { text += "\n" }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
    }

    @Test func aScreenshotIsAnSVGOfTheCallScreenWithoutATerminal() throws {
        let path = temporaryPath("call.svg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try TokenCallProcess.run(["join", "--screenshot", path, "--duration", "2", "--seed", "3", "--size", "100×30",
                                               "--channel", "demo<&>"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "nothing drawn on stdout: \(result.stdout.prefix(80))")
        #expect(result.stderr.contains("wrote \(path): 100×30 cells, 900×540 px"))
        let reader = SVGReader()
        let parser = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: path)))
        parser.delegate = reader
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(reader.root["width"] == "900" && reader.root["height"] == "540")
        #expect(reader.text.contains("tokencall │ iOS SDK │ channel demo<&>"))
        #expect(reader.text.contains("● connected"))
        #expect(reader.text.contains("expires in 00:"))
    }

    @Test func sigtermTakesThePictureThenAndLeaves() throws {
        let path = temporaryPath("early.svg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (process, _, stderr) = try TokenCallProcess.start(["join", "--screenshot", path, "--duration", "600", "--seed", "4"])
        _ = TokenCallProcess.read(stderr, until: "seed 4")
        Thread.sleep(forTimeInterval: 1)
        process.terminate()
        process.waitUntilExit()
        let said = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0)
        #expect(said.contains("wrote \(path): 120×36 cells, 1080×648 px"))
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("tokencall │ iOS SDK │ channel test"))
    }

    @Test func aPictureThatCannotBeWrittenIsOneClearLineBeforeTheCall() throws {
        let result = try TokenCallProcess.run(["join", "--screenshot", "/nonexistent-dir/call.svg", "--duration", "60"], limit: .seconds(20))
        #expect(result.status == 1)
        #expect(result.stderr == "tokencall join: cannot create /nonexistent-dir/call.svg: the folder /nonexistent-dir does not exist\n")
        #expect(result.stdout.isEmpty)
    }

    @Test func anExistingFileIsReplacedOnlyWithOverwrite() throws {
        let path = temporaryPath("kept.svg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "precious".write(toFile: path, atomically: false, encoding: .utf8)
        let refused = try TokenCallProcess.run(["join", "--screenshot", path, "--duration", "60"], limit: .seconds(20))
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("already exists (left as it is); give --overwrite to write over it, or another name"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious")
        let replaced = try TokenCallProcess.run(["join", "--screenshot", path, "--duration", "1", "--overwrite", "--no-color"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("<svg "))
    }

    @Test(arguments: [
        (["--screenshot", "x.svg"], "--screenshot needs --duration SECONDS"),
        (["--screenshot", "x.svg", "--duration", "1", "--size", "50x20"], "--size must be COLSxROWS from 60x20 to 400x200"),
        (["--screenshot", "x.svg", "--duration", "1", "--json"], "--screenshot prints no events"),
        (["--size", "100x30"], "--size sets the --screenshot picture"),
        (["--cast", "x.cast", "--headless"], "--cast records the call screen; leave out --headless and --json"),
        (["--overwrite"], "--overwrite applies to the file of --record, --cast or --screenshot"),
        (["--cast", "x.cast", "--screenshot", "y.svg", "--duration", "1"], "give one"),
    ])
    func aMisusedPictureOptionIsAUsageError(arguments: [String], message: String) throws {
        let directory = temporaryPath("dir")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try TokenCallProcess.run(["join"] + arguments.map { $0.contains(".") ? directory + "/" + $0 : $0 }, limit: .seconds(20))
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty, "no file is created")
    }

    @Test func aCastWithoutATerminalIsRefusedAndCreatesNothing() throws {
        let path = temporaryPath("call.cast")
        let result = try TokenCallProcess.run(["join", "--cast", path, "--duration", "1"], limit: .seconds(20))
        #expect(result.status == 64)
        #expect(result.stderr == "tokencall join: --cast records the call screen, and stdout or stdin is not a terminal\nsee tokencall join --help\n")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aCastRecordsTheCallScreenFrameByFrameWithItsResizes() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is needed; make deps installs it")
        let path = temporaryPath("call.cast")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let screen = try TmuxScreen(width: 100, height: 30, command: "TERM=tmux-256color \(TokenCallProcess.binary.path) --cast \(path) "
                                    + "--seed 5; echo EXIT=$?; sleep 60")
        screen.waitFor("● connected")
        try screen.resize(width: 90, height: 28)
        // The frame at the new size is drawn within a frame's time; the screen read back cannot tell it apart.
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline, (try? String(contentsOfFile: path, encoding: .utf8))?.contains(#""r", "90x28""#) != true {
            Thread.sleep(forTimeInterval: 0.05)
        }
        try screen.press("q")
        screen.waitFor("EXIT=0")

        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { Data($0.utf8) }
        let header = try #require(try JSONSerialization.jsonObject(with: lines[0]) as? [String: Any])
        #expect(header["version"] as? Int == 2 && header["width"] as? Int == 100 && header["height"] as? Int == 30)
        #expect((header["env"] as? [String: String])?["TERM"] == "tmux-256color")
        let events = try lines.dropFirst().map { try #require(try JSONSerialization.jsonObject(with: $0) as? [Any]) }
        let times = events.compactMap { $0[0] as? Double }
        #expect(times.count == events.count && times == times.sorted() && times.first! < 5)
        #expect(Set(events.compactMap { $0[1] as? String }) == ["o", "r"])
        #expect(events.contains { $0[1] as? String == "r" && $0[2] as? String == "90x28" })
        let first = try #require(events.first?[2] as? String)
        #expect(first.contains("tokencall │ iOS SDK │ channel test"))
        #expect(events.contains { ($0[2] as? String)?.contains("connected") == true })
    }

    @Test func aFullDiskStopsTheRecordingButNeitherTheCallNorTheTerminal() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is needed; make deps installs it")
        let screen = try TmuxScreen(width: 100, height: 30, command: "TERM=tmux-256color \(TokenCallProcess.binary.path) --cast /dev/full "
                                    + "--overwrite --seed 6; echo EXIT=$?; sleep 60")
        screen.waitFor("● connected")
        screen.waitFor("t 2 s")
        try screen.press("q")
        screen.waitFor("EXIT=1")
        #expect(screen.screen.contains("tokencall join: the recording stopped early: cannot write /dev/full: No space left on device"))
        #expect(!screen.screen.contains("● connected"), "the call screen is gone")
    }
}
