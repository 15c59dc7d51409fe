import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HTTP1
import JSON
import TestSupport
import Testing
@testable import TokenServer
@testable import WebServer
import SeededRandom

/// The server reads and writes the common requests without Foundation's parsers and coders. These tests hold
/// that the short ways give exactly what the general ones give, on generated inputs.
@Suite struct FastPathTests {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    @Test func membersAreWrittenAsJSONEncoderWritesThem() throws {
        var random = SplitMix64(seed: 5)
        let characters: [Character] = ["a", "/", "+", "=", " ", "\"", "\\", "\n", "\t", "\u{01}", "\u{7f}", "é", "\u{2028}", "0", "~"]
        for _ in 0..<5_000 {
            let text = String((0..<Int(random.next() % 8)).map { _ in random.pick(characters) })
            let name = random.pick(["error", "token", "rtcToken", "message", "a\"b"])
            let status = random.pick([200, 400, 404, 503])
            let headers = random.below(100) < 50 ? [(name: "Allow", value: "GET")] : []
            let fast = HTTPResponse.json(status, member: name, text, headers: headers)
            let general = HTTPResponse.json(status, [name: text], headers: headers)
            #expect(fast.body == general.body && fast.status == general.status, "\(text.debugDescription)")
            #expect(fast.serialized(keepAlive: true, date: []) == general.serialized(keepAlive: true, date: []))
            #expect(HTTPResponse.error(status, text).body == Array(try Self.encoder.encode(["error": text])))
        }
        for byte in UInt8(0x20)..<0x7F {
            let text = "007" + String(UnicodeScalar(byte))
            #expect(HTTPResponse.json(200, member: "token", text).body == Array(try Self.encoder.encode(["token": text])))
        }
    }

    @Test func fetchAnswersAreWrittenAsJSONEncoderWritesThem() throws {
        for (token, lifetime) in [("007eJxTYB/+ab=", UInt32(3600)), ("", 1), ("a\"b\\c\n", 86_400), ("é/", 40), ("x", UInt32.max)] {
            let answer = TokenRoutes.fetchAnswer(token: token, expiresIn: lifetime)
            #expect(answer.body == Array(try Self.encoder.encode(TokenRoutes.FetchAnswer(token: token, expiresIn: lifetime))))
            #expect(answer.status == 200 && answer.headers.isEmpty)
        }
    }

    /// The members a body gives the endpoints, whichever way it was read; the error's words when it is refused.
    static func members(_ body: [UInt8], flat: Bool) -> Result<[String: JSONValue], TokenRoutes.BadRequest> {
        Result { () throws(TokenRoutes.BadRequest) in
            switch try TokenRoutes.object(body, flat: flat) {
            case .flat(let object): Dictionary(object.members.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
            case .parsed(let members): members
            }
        }
    }

    /// A body read straight from its bytes gives the endpoints the members the full parser gives (they read nothing
    /// else of it), so the answers and errors are the same for every body.
    @Test func tokenRequestBodiesReadEitherWayAlike() {
        var random = SplitMix64(seed: 21)
        let bench = Array(#"{"uid": 42, "channelName": "bench", "role": 1}"#.utf8)
        let pieces = [#""uid""#, #""channelName""#, #""ChannelName""#, #""role""#, #""bench""#, #""user""#, #""a"b""#, #""é""#,
                      "42", "-1", "4294967296", "0", "01", "2.0", "1e2", "true", "null", "{", "}", ":", ",", " ", "\n", "[]"]
        var flat = 0
        for round in 0..<30_000 {
            var body = bench
            if round % 3 == 0 {
                body = Array((0..<(1 + Int(random.next() % 12))).map { _ in random.pick(pieces) }.joined().utf8)
            } else if round % 3 == 1 {
                let at = Int(random.next() % UInt64(body.count))
                body[at] = UInt8(truncatingIfNeeded: random.next())
            } else {
                let at = Int(random.next() % UInt64(body.count))
                body.insert(contentsOf: random.pick(pieces).utf8, at: at)
            }
            let fast = Self.members(body, flat: true), full = Self.members(body, flat: false)
            switch (fast, full) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(String(decoding: body, as: UTF8.self).debugDescription)")
            case (.failure(let a), .failure(let b)): #expect(a.message == b.message)
            default: Issue.record("one way read \(String(decoding: body, as: UTF8.self).debugDescription) and the other refused it")
            }
            if case .flat = try? TokenRoutes.object(body) { flat += 1 }
        }
        #expect(flat > 5_000)
        if case .flat = try? TokenRoutes.object(bench) {} else { Issue.record("the bench's body took the full parser") }
    }

    @Test func anAssetAtAnEndpointsPathIsTheAsset() {
        var config = TokenServerConfig(port: 0, appID: String(repeating: "a", count: 32), appCertificate: String(repeating: "b", count: 32))
        config.assets["/ping"] = WebAsset(contentType: "text/plain", body: Array("asset".utf8))
        #expect(TokenRoutes(config: config).handle(HTTPRequest(target: "/ping")).body == Array("asset".utf8))
        config.assets = ["/other": WebAsset(contentType: "text/plain", body: [])]
        let routes = TokenRoutes(config: config)
        for target in ["/ping", "/ping/", "//ping", "/ping?x=1", "/p%69ng"] {
            #expect(routes.handle(HTTPRequest(target: target)).body == Array(#"{"message":"pong"}"#.utf8), "\(target)")
        }
        #expect(routes.handle(HTTPRequest(target: "/Ping")).status == 404)
    }
}

/// The workers: several connections per thread, answers in order, and no connection holding up another.
@Suite struct WorkerTests {
    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        var batch = ""
        for uid in 0..<20 {
            let body = #"{"uid": \#(uid + 1), "channelName": "pipe"}"#
            batch += uid % 5 == 4 ? "GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                : "POST /fetch_rtc_token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        }
        batch += "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        client.send(batch)
        for uid in 0..<20 {
            let response = client.readResponse()
            if uid % 5 == 4 {
                #expect(response?.status == 404)
            } else {
                let token = try verifiedToken(response)
                #expect(token.rtc?.uid == "\(uid + 1)" && token.rtc?.channel == "pipe")
            }
        }
        let last = client.readResponse()
        #expect(last?.status == 200 && last?.headers["connection"] == "close")
        #expect(client.isClosedByServer())
    }

    @Test func requestsOfManyClientsReadInOneTurnAreEachAnsweredToTheirOwnClient() throws {
        let server = try startServer()
        defer { server.stop() }
        let clients = try (0..<40).map { _ in try RawClient(port: server.port) }
        for round in 0..<3 {
            for (index, client) in clients.enumerated() {
                let body = #"{"uid": \#(round * 100 + index + 1), "channelName": "many"}"#
                client.send("POST /fetch_rtc_token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            }
            for (index, client) in clients.enumerated() {
                let token = try verifiedToken(client.readResponse())
                #expect(token.rtc?.uid == "\(round * 100 + index + 1)" && token.rtc?.channel == "many")
            }
        }
    }

    @Test func moreRequestsInATurnThanAnswersHeldAreAllAnsweredToTheirOwnClient() throws {
        var limits = HTTPServer.Limits()
        limits.workers = 1
        limits.maxConnectionsPerAddress = limits.maxConnections
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits, log: nil) { request in
            HTTPResponse(status: 200, body: Array(request.path.utf8))
        }
        defer { server.stop() }
        let count = 3 * HTTPServer.answersHeld + 5
        let clients = try (0..<count).map { _ in try RawClient(port: server.port) }
        for (index, client) in clients.enumerated() { client.send("GET /\(index) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") }
        for (index, client) in clients.enumerated() {
            let response = client.readResponse()
            #expect(response?.status == 200 && response?.body == "/\(index)")
        }
    }

    @Test func aClientThatStopsReadingHoldsUpNobodyAndIsDroppedAfterTheSendTimeout() throws {
        var limits = HTTPServer.Limits()
        limits.sendTimeout = .milliseconds(300)
        limits.workers = 1  // the stuck client and the others share one thread
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: 256 * 1024)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits, log: nil) { request in
            request.path == "/big" ? HTTPResponse(status: 200, body: big) : .json(200, member: "message", "pong")
        }
        defer { server.stop() }
        let stuck = try RawClient(port: server.port)
        var shrink: Int32 = 4096
        setsockopt(stuck.fd, SOL_SOCKET, SO_RCVBUF, &shrink, socklen_t(MemoryLayout<Int32>.size))
        stuck.send(String(repeating: "GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", count: 40))
        Thread.sleep(forTimeInterval: 0.1)
        let started = ContinuousClock.now
        for _ in 0..<5 {
            #expect(try RawClient(port: server.port).request("GET", "/ping")?.status == 200)
        }
        #expect(ContinuousClock.now - started < .seconds(1), "others are served while one answer waits")
        let deadline = ContinuousClock.now + .seconds(3)
        while server.connectionCount > 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(server.connectionCount == 0, "the stuck connection is closed")
    }

    @Test func aClientPipeliningMegabytesThatReadsSlowlyIsNotReadFromAndOthersAreServed() throws {
        var limits = HTTPServer.Limits()
        limits.workers = 1  // the pipelining client and the others share one thread
        limits.sendTimeout = .seconds(30)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits, log: nil) { _ in .json(200, member: "message", "pong") }
        defer { server.stop() }
        let fd = try #require(Loopback.connect(port: server.port, receiveBuffer: 4096))
        defer { close(fd) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        let requests = [UInt8](String(repeating: "GET /ping HTTP/1.1\r\nHost: t\r\n\r\n", count: 2048).utf8)
        let attempt = 64 * 1024 * 1024
        var sent = 0, lastProgress = ContinuousClock.now, lastRead = ContinuousClock.now
        while sent < attempt, ContinuousClock.now - lastProgress < .seconds(1) {
            let count = requests.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                sent += count
                lastProgress = .now
            } else {
                var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&entry, 1, 20)
            }
            if ContinuousClock.now - lastRead > .milliseconds(500) {  // reads one byte now and then
                var byte: UInt8 = 0
                _ = recv(fd, &byte, 1, 0)
                lastRead = .now
            }
        }
        #expect(sent < attempt / 2, "the server stopped reading: \(sent) of \(attempt) bytes went out")
        let started = ContinuousClock.now
        for _ in 0..<10 { #expect(try RawClient(port: server.port).request("GET", "/ping")?.status == 200) }
        #expect(ContinuousClock.now - started < .seconds(2), "others are served meanwhile")
    }

    @Test func connectionsSpreadOverTheWorkersAndAllAreServed() async throws {
        var limits = HTTPServer.Limits()
        limits.workers = 3
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits, log: nil) { _ in .json(200, member: "message", "pong") }
        defer { server.stop() }
        let port = server.port
        let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<30 {
                group.addTask {
                    try await Task.detached {
                        let client = try RawClient(port: port)
                        return (0..<20).map { _ in client.request("GET", "/ping")?.status ?? 0 }
                    }.value
                }
            }
            return try await group.reduce(into: [Int: Int]()) { counts, statuses in
                for status in statuses { counts[status, default: 0] += 1 }
            }
        }
        #expect(statuses == [200: 600])
    }
}
