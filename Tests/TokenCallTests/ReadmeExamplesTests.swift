import Foundation
import TestSupport
import Testing

/// Every command of README.md's ```sh blocks, run as printed with the built `tokencall` first on the PATH: a new
/// example is run without a change here. What differs from a user's terminal, and why:
/// - `APP_ID` and `APP_CERTIFICATE` are the test's (an `export` of `...` exports them); `TOKEN` and `token.txt`
///   (in the block's own empty folder) are what the block's `token build` printed.
/// - `serve` gets a free port through `SERVER_PORT` (8082 may be another test's), and 8082 elsewhere in the block is
///   that port; `HOST` is 127.0.0.1; `https://tokens.example.com`, the doctor's "your own token server", is a `serve
///   --cors-origin https://app.example` the test starts (there is no network here).
/// - A command that runs until stopped (`serve`; a call, which prints its events without a terminal) is started, and
///   stopped with SIGTERM once the block's other commands are done (a call once it has joined).
/// - `make run` and `make test` are skipped: the first draws the call screen on a terminal a test does not have, the
///   second runs this very suite.
@Suite(.serialized) struct ReadmeExamplesTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../README.md").standardized

    /// The commands of each ```sh block: lines continued with `\` joined, comments and blank lines dropped.
    static func blocks(of text: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        var pending = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if current == nil {
                if line == "```sh" { current = [] }
                continue
            }
            if line == "```" {
                blocks.append(current ?? [])
                current = nil
                continue
            }
            let command = pending + withoutComment(line).trimmingCharacters(in: .whitespaces)
            if command.hasSuffix("\\") {
                pending = String(command.dropLast()) + " "
            } else {
                pending = ""
                if !command.isEmpty { current?.append(command) }
            }
        }
        return blocks
    }

    /// `line` up to a ` #` outside quotes.
    static func withoutComment(_ line: String) -> String {
        var quote: Character?
        var previous: Character = " "
        for (offset, character) in line.enumerated() {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "#", previous == " " || offset == 0 {
                return String(line.prefix(offset))
            }
            previous = character
        }
        return line
    }

    /// Why a command cannot run here; nil when it runs.
    static func skipped(_ command: String) -> String? {
        command.hasPrefix("make ") ? "make run needs a terminal, and make test runs this suite" : nil
    }

    /// Runs until stopped: a token server, or a call (`tokencall` with join's options, not a named command).
    static func runsUntilStopped(_ command: String) -> Bool {
        command.hasPrefix("tokencall serve") || command.hasPrefix("tokencall --") || command.hasPrefix("tokencall join")
    }

    @Test func everyShellExampleOfTheREADMERunsAsPrinted() throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let blocks = Self.blocks(of: text)
        #expect(blocks.count >= 5, "README.md's ```sh blocks: \(blocks)")
        let doctorServer = try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate,
                                                       ["--quiet", "--cors-origin", "https://app.example"])
        defer { doctorServer.0.terminate(); doctorServer.0.waitUntilExit() }
        var ran = 0
        for block in blocks {
            ran += try run(block, yourServer: doctorServer.2)
        }
        #expect(ran >= 8, "commands run: \(ran)")
    }

    /// Docs/ci.md's ```sh blocks run the same way: `tokencall test` with built-ins, and against "your own token server".
    @Test func everyShellExampleOfTheCIPageRunsAsPrinted() throws {
        let page = Self.readme.deletingLastPathComponent().appendingPathComponent("Docs/ci.md")
        let blocks = Self.blocks(of: try String(contentsOf: page, encoding: .utf8))
        let yourServer = try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate, ["--quiet"])
        defer { yourServer.0.terminate(); yourServer.0.waitUntilExit() }
        var ran = 0
        for block in blocks {
            ran += try run(block, yourServer: yourServer.2)
        }
        #expect(ran >= 3, "commands run: \(ran)")
    }

    /// Runs one block's commands in order; returns how many ran.
    func run(_ block: [String], yourServer: URL) throws -> Int {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = try HubFarm.freePort(avoiding: [8082])
        var environment = ["PATH": TokenCallProcess.binary.deletingLastPathComponent().path + ":/usr/bin:/bin", "HOME": folder.path,
                           "APP_ID": TestCredentials.appID, "APP_CERTIFICATE": TestCredentials.certificate, "SERVER_PORT": "\(port)"]
        var running: [(command: String, process: Process, stdout: PipeDrain, stderr: PipeDrain)] = []
        defer {
            for started in running where started.process.isRunning {
                started.process.terminate()
                _ = started.process.exitTime(within: .seconds(10))
            }
        }
        var ran = 0
        for printed in block {
            if let why = Self.skipped(printed) {
                print("README example skipped: \(printed): \(why)")
                continue
            }
            let command = printed.replacingOccurrences(of: "8082", with: "\(port)").replacingOccurrences(of: "HOST:", with: "127.0.0.1:")
                .replacingOccurrences(of: "https://tokens.example.com", with: yourServer.absoluteString)
            if command.hasPrefix("export ") {
                for pair in command.dropFirst("export ".count).split(separator: " ") {
                    let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                    if parts.count == 2, parts[1] != "..." { environment[parts[0]] = parts[1] }
                }
                continue
            }
            ran += 1
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "exec " + command]
            process.environment = environment
            process.currentDirectoryURL = folder
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let (stdout, stderr) = (PipeDrain(out), PipeDrain(err))
            if Self.runsUntilStopped(command) {
                let ready = command.hasPrefix("tokencall serve") ? "listening on" : "didJoinChannel"
                let drain = command.hasPrefix("tokencall serve") ? stderr : stdout
                #expect(drain.wait(for: ready, upTo: .seconds(60)), "\(printed): \(stdout.text)\(stderr.text)")
                running.append((printed, process, stdout, stderr))
                continue
            }
            let ended = process.exitTime(within: .seconds(180))
            #expect(ended != nil && process.terminationStatus == 0,
                    "\(printed): status \(process.terminationStatus)\n\(stdout.text.suffix(2000))\n\(stderr.text.suffix(2000))")
            if command.hasPrefix("tokencall token build") {
                let token = stdout.text.trimmingCharacters(in: .whitespacesAndNewlines)
                environment["TOKEN"] = token
                try Data((token + "\n").utf8).write(to: folder.appendingPathComponent("token.txt"))
            }
        }
        for started in running {
            started.process.terminate()
            #expect(started.process.exitTime(within: .seconds(20)) != nil, "\(started.command) stops on SIGTERM")
            #expect(started.process.terminationStatus == 0, "\(started.command): \(started.stdout.text.suffix(2000))\(started.stderr.text.suffix(2000))")
        }
        return ran
    }

    /// The picture the README shows is the call `make run` starts: `make pictures` asks for nothing the default call
    /// does not have, and it shows as many remote users as join's default.
    @Test func theREADMEsPictureShowsTheDefaultCall() throws {
        let root = Self.readme.deletingLastPathComponent()
        let makefile = try String(contentsOf: root.appendingPathComponent("Makefile"), encoding: .utf8)
        let target = try #require(makefile.split(separator: "\n\n").first { $0.contains("\npictures:") || $0.hasPrefix("pictures:") })
        #expect(!target.contains("--remote-users"), "\(target)")
        let help = try TokenCallProcess.run(["join", "--help"]).stdout
        let line = try #require(help.split(separator: "\n").first { $0.hasPrefix("  --remote-users ") })
        let remoteUsers = try #require(line.split(separator: "(default ").last.flatMap { Int($0.prefix { $0.isNumber }) })
        let picture = try String(contentsOf: root.appendingPathComponent("Docs/images/call.svg"), encoding: .utf8)
        #expect(picture.components(separatedBy: "didJoinedOfUid").count - 1 == remoteUsers)
        let words = [1: "one", 2: "two", 3: "three", 4: "four"]
        let readme = try String(contentsOf: Self.readme, encoding: .utf8)
        #expect(readme.contains("video tiles of you and \(words[remoteUsers] ?? "\(remoteUsers)") remote users"))
    }
}
