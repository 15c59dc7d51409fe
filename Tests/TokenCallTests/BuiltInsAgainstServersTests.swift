import Foundation
import TestSupport
import Testing

/// The built-in scenarios that need no embedded server (it cannot be stopped or made to err from here) pass against
/// `tokencall serve` and against a token server in another language: Python on Agora's own builder (agoraiotools).
/// two-in-a-hub's hub, in tokencall's process, checks the server's tokens with its App ID and certificate.
@Suite(.serialized) struct BuiltInsAgainstServersTests {
    static let builtIns = ["renews-before-expiry", "recovers-after-expiry", "network-cut-near-expiry", "user-account", "two-in-a-hub"]
    /// agora-token-service's request, whose `uid` carries the uid and the user-account built-in's account alike.
    static let request = "getToken"

    /// The virtualenv `make deps` makes (Scripts/deps.sh), with agoraiotools in it.
    static let python = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../.build/bench/venv/bin/python").standardized.path
    static let pythonServer = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Python/token_server.py").path
    static let pythonReady: Bool = {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: python)
        check.arguments = ["-c", "import agoraiotools"]
        check.standardError = FileHandle.nullDevice
        guard (try? check.run()) != nil else { return false }
        check.waitUntilExit()
        return check.terminationStatus == 0
    }()

    /// Runs the built-ins against `url`; each must pass, in order.
    private static func runBuiltIns(against url: URL) throws {
        let result = try TokenCallProcess.run(["test"] + builtIns + ["--token-url", url.absoluteString, "--token-request", request,
                                                                    "--uid", "42", "--app-id", TestCredentials.appID,
                                                                    "--app-certificate", TestCredentials.certificate, "--seed", "3"],
                                              limit: .seconds(120))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
                == builtIns.map { "PASS \($0)" } + ["\(builtIns.count) passed,"], "\(result.stdout)")
    }

    @Test func theBuiltInsPassAgainstTokencallServe() throws {
        let (server, _, url, _) = try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate,
                                                             ["--token-lifetime", "600", "--quiet"])
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        try Self.runBuiltIns(against: url)
    }

    @Test(.enabled(if: pythonReady, "needs .build/bench/venv with agoraiotools: make deps (pip must reach PyPI)"))
    func theBuiltInsPassAgainstAPythonTokenServerOnAgorasBuilder() throws {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: Self.python)
        server.arguments = [Self.pythonServer]
        server.environment = ["APP_ID": TestCredentials.appID, "APP_CERTIFICATE": TestCredentials.certificate, "TOKEN_LIFETIME": "600"]
        let out = Pipe()
        server.standardOutput = out
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let port = TokenCallProcess.read(out, until: "\n").split(separator: "\n").first.flatMap { Int($0) }
        let url = try #require(port.flatMap { URL(string: "http://127.0.0.1:\($0)") }, "the Python server printed no port")
        try Self.runBuiltIns(against: url)
    }
}
