import Foundation
import Synchronization
import TestSupport
import Testing
@testable import TokenServer
@testable import WebServer

@Suite struct ProtocolTests {
    /// Over a socket, a refusal is answered, the connection closed, and the server serves on (every refusal, sans
    /// I/O: `RefusalTests`, `MachineParsingTests`).
    @Test(arguments: [
        ("garbage", "\u{01}\u{02}\u{03}garbage\r\n\r\n", 400),
        ("headers over 8 KiB", "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: \(String(repeating: "a", count: 9000))\r\n\r\n", 431),
    ])
    func malformedRequestsGetAnErrorAndAClosedConnection(name: String, raw: String, status: Int) throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.send(raw)
        let response = client.readResponse()
        #expect(response?.status == status, "\(name)")
        #expect(response?.json?["error"] is String, "\(name)")
        #expect(response?.headers["connection"] == "close", "\(name)")
        #expect(client.isClosedByServer(), "\(name)")
        #expect(try RawClient(port: server.port).request("GET", "/ping")?.status == 200, "\(name): the server still serves")
    }

    @Test func aSlowClientIsCutOffWhileOthersAreServed() throws {
        let server = try startServer(deadline: .milliseconds(600))
        defer { server.stop() }
        let slow = try RawClient(port: server.port)
        // A thread of its own: the test pool's threads may all be blocked in socket reads. Joined before the test ends.
        let dripping = OwnedThreads()
        defer { dripping.joinAll() }
        dripping.start {
            for byte in "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8 {
                slow.send([byte])
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        let started = ContinuousClock.now
        for _ in 0..<5 {
            #expect(try RawClient(port: server.port).request("GET", "/ping")?.status == 200)
        }
        #expect(ContinuousClock.now - started < .seconds(3), "others are served while the client still drips")
        let answer = slow.readResponse()
        #expect(answer?.status == 408)
        #expect(slow.isClosedByServer())
    }

    @Test func aClientStillSendingAnOversizedBodyReadsIts413() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let upload = Array("POST /getToken HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 262144\r\n\r\n".utf8) + [UInt8](repeating: 0x7B, count: 262_144)
        let uploading = OwnedThreads()
        defer { uploading.joinAll() }
        uploading.start { client.send(upload) }
        #expect(client.readResponse()?.status == 413)
        #expect(client.isClosedByServer())
    }

    @Test func aShortBodyTimesOut() throws {
        let server = try startServer(deadline: .milliseconds(300))
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.send("POST /fetch_rtc_token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{\"uid\":")
        #expect(client.readResponse()?.status == 408)
    }

    @Test func overTheConnectionLimitNewClientsGet503() throws {
        let server = try startServer(maxConnections: 2)
        defer { server.stop() }
        let first = try RawClient(port: server.port), second = try RawClient(port: server.port)
        #expect(first.request("GET", "/ping")?.status == 200)
        #expect(second.request("GET", "/ping")?.status == 200)
        let third = try RawClient(port: server.port)
        let refused = third.readResponse()
        #expect(refused?.status == 503)
        #expect(refused?.headers["retry-after"] == "1")
        #expect(first.request("GET", "/ping")?.status == 200)
    }

    @Test func aThousandRequestsOnOneKeptAliveConnection() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        var statuses: [Int: Int] = [:]
        for uid in 0..<1000 {
            let response = client.request("POST", "/fetch_rtc_token", body: #"{"uid": \#(uid), "channelName": "soak"}"#)
            statuses[response?.status ?? 0, default: 0] += 1
        }
        #expect(statuses == [200: 1000])
    }

    @Test func twoHundredConcurrentConnections() async throws {
        let server = try startServer()
        defer { server.stop() }
        let port = server.port
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for uid in 0..<200 {
                group.addTask {
                    try await Task.detached {
                        let client = try RawClient(port: port)
                        return client.request("POST", "/fetch_rtc_token", body: #"{"uid": \#(uid), "channelName": "crowd"}"#)?.status ?? 0
                    }.value
                }
            }
            return try await group.reduce(into: [Int: Int]()) { $0[$1, default: 0] += 1 }
        }
        #expect(statuses == [200: 200])
    }

    @Test func corsIsOffByDefaultAndExactWhenOn() throws {
        let plain = try startServer()
        defer { plain.stop() }
        let client = try RawClient(port: plain.port)
        #expect(client.request("GET", "/ping", headers: ["Origin": "https://app.example"])?.headers["access-control-allow-origin"] == nil)
        #expect(client.request("OPTIONS", "/fetch_rtc_token")?.status == 405)

        let cors = try startServer(cors: ["https://app.example"])
        defer { cors.stop() }
        let browser = try RawClient(port: cors.port)
        let allowed = browser.request("POST", "/fetch_rtc_token", body: #"{"uid": 1, "channelName": "a"}"#,
                                      headers: ["Origin": "https://app.example"])
        #expect(allowed?.headers["access-control-allow-origin"] == "https://app.example")
        #expect(allowed?.headers["vary"] == "Origin")
        #expect(browser.request("GET", "/ping", headers: ["Origin": "https://evil.example"])?.headers["access-control-allow-origin"] == nil)
        let preflight = browser.request("OPTIONS", "/fetch_rtc_token", headers: ["Origin": "https://app.example"])
        #expect(preflight?.status == 204)
        #expect(preflight?.headers["access-control-allow-methods"] == "POST, OPTIONS")
        #expect(preflight?.headers["access-control-allow-headers"]?.contains("Authorization") == true)

        let any = try startServer(cors: ["*"])
        defer { any.stop() }
        #expect(try RawClient(port: any.port).request("GET", "/ping", headers: ["Origin": "https://x.example"])?
            .headers["access-control-allow-origin"] == "*")
    }

    @Test func oneLogLinePerRequestWithoutSecrets() throws {
        let log = LogLines()
        let server = try startServer(bearer: "bearer-secret", log: log)
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let answer = client.request("POST", "/fetch_rtc_token", body: #"{"uid": 5, "channelName": "a"}"#,
                                    headers: ["Authorization": "Bearer bearer-secret"])
        let token = try #require(answer?.json?["token"] as? String)
        _ = client.request("GET", "/nowhere")
        let lines = log.all
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("POST /fetch_rtc_token 200 "))
        #expect(lines[0].hasSuffix("µs"))
        #expect(lines[1].hasPrefix("GET /nowhere 404 "))
        for line in lines {
            #expect(!line.contains(token) && !line.contains(TestCredentials.certificate) && !line.contains("bearer-secret"))
        }
    }

    /// What the server logs for one GET of `path`.
    private func logged(_ path: String) throws -> [String] {
        let log = LogLines()
        let server = try startServer(log: log)
        defer { server.stop() }
        _ = try RawClient(port: server.port).request("GET", path)
        return log.all
    }

    @Test func aPathCannotReorderOrBreakALogLineWithUnicode() throws {
        let lines = try logged("/a%E2%80%AEb%E2%80%A8c")
        #expect(lines.first?.hasPrefix("GET /a%E2%80%AEb%E2%80%A8c 404 ") == true, "\(lines)")
    }

    @Test func aPathCannotForgeLogLinesOrDriveTheTerminal() throws {
        let lines = try logged("/x%0AGET%20/ping%20200%201%C2%B5s%1B%5B2J")
        #expect(lines == ["GET /x%0AGET%20/ping%20200%201µs%1B[2J 404 " + (lines.first?.split(separator: " ").last ?? "")])
        #expect(!lines.joined().unicodeScalars.contains { $0.value < 0x20 })
    }

    @Test func stoppingFinishesQuicklyAndRefusesNewConnections() throws {
        let server = try startServer()
        let idle = try RawClient(port: server.port)
        #expect(idle.request("GET", "/ping")?.status == 200)
        let started = ContinuousClock.now
        server.stop()
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(idle.isClosedByServer())
        #expect(throws: (any Error).self) { try RawClient(port: server.port) }
    }

    @Test func aTakenPortIsAClearError() throws {
        let server = try startServer()
        defer { server.stop() }
        let config = TokenServerConfig(port: server.port, appID: TestCredentials.appID, appCertificate: TestCredentials.certificate)
        #expect {
            try TokenServer(config)
        } throws: { error in
            "\(error)".contains("cannot listen on 127.0.0.1:\(server.port)") && "\(error)".contains("in use")
        }
    }
}
