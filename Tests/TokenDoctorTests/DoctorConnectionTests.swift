import HTTP1
import TestSupport
import Testing
import TokenClient
@testable import TokenDoctor

/// Which of the doctor's requests share a connection, against a server that keeps connections and counts them.
@Suite struct DoctorConnectionTests {
    static func doctor(_ server: KeepAliveServer) -> Doctor {
        Doctor(DoctorTests.setup(server.url), transport: LoopHTTPTransport(userAgent: "tokencall/test", idleLimit: .seconds(600)))
    }

    @Test func requestsShareOneConnection() async throws {
        let server = try KeepAliveServer { _ in .answer(keptAnswer()) }
        defer { server.stop() }
        let doctor = Self.doctor(server)
        for _ in 0..<3 { _ = await doctor.send(HTTPRequest(url: server.url)) }
        #expect(server.requests.count == 3)
        #expect(server.accepted == 1)
    }

    @Test func theLatencyCheckTimesEachRequestOnANewConnection() async throws {
        let server = try KeepAliveServer { _ in .answer(keptAnswer()) }
        defer { server.stop() }
        let check = await Self.doctor(server).latencyCheck(HTTPRequest(url: server.url))
        #expect(server.requests.count == Doctor.latencyRequests, "\(check.detail)")
        #expect(server.accepted == Doctor.latencyRequests, "the connect is part of what a renewing client waits for")
    }
}
