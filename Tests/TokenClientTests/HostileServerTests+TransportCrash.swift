import Foundation
import Glibc
import TestSupport
import Testing

extension HostileServerTests {
    /// Server behaviour and timing that end the process using `URLSessionTransport` (a FoundationNetworking trap),
    /// tried in a child process (`transport-probe`) so that this test process survives to say so. `tokencall join` runs
    /// each request in a child (`ChildProcessTransport`, tested beside); nested in the serialized suite, these probes
    /// never run beside its flood.
    @Suite struct TransportCrash {
        /// How the probe ended.
        struct Ending {
            let reason: Process.TerminationReason
            let status: Int32
            let stdout: String
            let stderr: String

            var isClean: Bool { reason == .exit && status == 0 }
        }

        /// Answers that FoundationNetworking in Swift 6.3.1 (libcurl 7.88) completes without a response, and then traps.
        enum EndlessHead: String, CaseIterable, Sendable {
            /// The connection closes cleanly (FIN) before the blank line that ends the head.
            case closedInsideTheHead
            /// A chunked body with a trailer field, which FoundationNetworking takes for the start of a new head.
            case chunkedTrailer

            func write(to connection: HostileServer.Connection) {
                switch self {
                case .closedInsideTheHead:
                    connection.write("HTTP/1.1 200 OK\r\nX-Slow: aaa")
                case .chunkedTrailer:
                    connection.write(head("200 OK", ["Content-Type: application/json", "Transfer-Encoding: chunked"])
                        + "2\r\n{}\r\n0\r\nX-Checksum: 1\r\n\r\n")
                }
            }
        }

        @Test func aFetchCancelledAsItStartsEndsWithoutCrashing() throws {
            let server = try HostileServer { $0.write(head("200 OK", ["Content-Length: 2"]) + "{}") }
            defer { server.stop() }
            let ended = try probe([server.url.absoluteString, "cancel-at-start", "300"])
            #expect(ended.isClean, "\(ended.stderr)")
            #expect(ended.stdout == "300 cancelled\n")
            #expect(!ended.stderr.contains("Session invalidated"))
        }

        @Test(arguments: EndlessHead.allCases)
        func anAnswerWithoutAWholeHeadEndsTheFetchNotTheProcess(answer: EndlessHead) throws {
            let server = try HostileServer { answer.write(to: $0) }
            defer { server.stop() }
            let ended = try probe([server.url.absoluteString])
            withKnownIssue("FoundationNetworking #5285, fixed upstream by PR #5286, which Swift 6.3.1 lacks") {
                #expect(ended.isClean, "\(ended.stderr)")
            }
            #expect(ended.isClean || ended.stderr.contains("Fatal error: Transfer completed, but there's no response"),
                    "a crash other than #5285: \(ended.stderr)")
        }

        /// Runs `transport-probe` to its end (killed after a minute), without the Swift backtracer's report.
        private func probe(_ arguments: [String]) throws -> Ending {
            let process = Process()
            process.executableURL = builtExecutable("transport-probe")
            process.arguments = arguments
            var environment = ProcessInfo.processInfo.environment
            environment["SWIFT_BACKTRACE"] = "enable=no"
            process.environment = environment
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let pid = process.processIdentifier
            let overdue = DispatchWorkItem { kill(pid, SIGKILL) }
            DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: overdue)
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            overdue.cancel()
            return Ending(reason: process.terminationReason, status: process.terminationStatus,
                          stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
        }
    }
}
