import Foundation
import TestSupport
import Testing

/// Runs the built `tokencall` binary, as a user would, and collects what it prints.
struct TokenCallProcess {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static let binary = builtExecutable("tokencall")

    /// Reads what a running process writes to `pipe` until `text` shows (or the pipe closes); returns what it read.
    static func read(_ pipe: Pipe, until text: String) -> String {
        var seen = ""
        while !seen.contains(text) {
            let chunk = pipe.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        return seen
    }

    /// Starts the binary (in this environment, or the test's own) with its output and errors on pipes; with
    /// `openFiles`, under `ulimit -n openFiles`.
    static func start(_ arguments: [String], environment: [String: String]? = nil, openFiles: Int? = nil) throws
        -> (process: Process, stdout: Pipe, stderr: Pipe) {
        let process = Process()
        if let openFiles {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(openFiles) && exec \"$0\" \"$@\"", binary.path] + arguments
        } else {
            process.executableURL = binary
            process.arguments = arguments
        }
        if let environment { process.environment = environment }
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        return (process, stdout, stderr)
    }

    /// Starts `tokencall serve --port 0` with these credentials and waits for the line saying where it listens.
    /// Returns what it printed first too.
    static func serve(appID: String, certificate: String, _ extra: [String] = [], openFiles: Int? = nil) throws
        -> (Process, Pipe, URL, String) {
        let (process, _, stderr) = try start(["serve", "--port", "0"] + extra,
                                             environment: ["APP_ID": appID, "APP_CERTIFICATE": certificate, "PATH": "/usr/bin:/bin"],
                                             openFiles: openFiles)
        let seen = read(stderr, until: "\n")
        let address = try #require(seen.split(separator: " ").first { $0.hasPrefix("http://") || $0.hasPrefix("https://") })
        return (process, stderr, try #require(URL(string: String(address))), seen)
    }

    /// Runs the binary to its end; one still running after `limit` is killed (SIGKILL, so its status says so).
    static func run(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil,
                    limit: Duration = .seconds(120)) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["APP_ID"] = nil
        env["APP_CERTIFICATE"] = nil
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(limit / .milliseconds(1)))) { kill(pid, SIGKILL) }
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }
}
