import Foundation
import HTTP1
import Synchronization
import TestSupport
import Testing
@testable import TokenClient

/// Connections the transport keeps between requests, against a server that keeps them too and counts them.
@Suite struct KeepAliveTests {
    /// An idle connection kept for as long as a test may take: a test process whose threads are all busy can hold a task
    /// back longer than the 4 s a connection is kept by default.
    static let longIdle: Duration = .seconds(600)

    static func transport(connectionsPerOrigin: Int = LoopHTTPTransport.defaultConnectionsPerOrigin) -> LoopHTTPTransport {
        LoopHTTPTransport(userAgent: "tokencall/test", limit: LoopHTTPTransportTests.transportLimit, connectionsPerOrigin: connectionsPerOrigin,
                          idleLimit: longIdle)
    }

    static func fetch(_ transport: LoopHTTPTransport, _ url: URL) async throws -> String {
        String(decoding: try await transport.send(LoopHTTPTransportTests.post(url), bodyLimit: 100).reply.body, as: UTF8.self)
    }

    @Test func twoFetchesOneAfterTheOtherGoOnOneConnection() async throws {
        let server = try KeepAliveServer { .answer(keptAnswer("{\"n\":\($0.index)}")) }
        defer { server.stop() }
        let transport = Self.transport()
        #expect(try await Self.fetch(transport, server.url) == "{\"n\":0}")
        #expect(try await Self.fetch(transport, server.url) == "{\"n\":1}")
        #expect(server.accepted == 1)
    }

    @Test func anAnswerThatSaysCloseIsNotReused() async throws {
        let server = try KeepAliveServer { _ in .answer("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}") }
        defer { server.stop() }
        let transport = Self.transport()
        _ = try await Self.fetch(transport, server.url)
        _ = try await Self.fetch(transport, server.url)
        #expect(server.accepted == 2)
    }

    @Test func aKeptConnectionTheServerLetGoIsRetriedOnceOnANewOne() async throws {
        // The second request meets the server letting the first connection go: no byte of answer, the connection closed.
        let server = try KeepAliveServer { $0.index == 1 ? .hangUp : .answer(keptAnswer("{\"n\":\($0.index)}")) }
        defer { server.stop() }
        let transport = Self.transport()
        #expect(try await Self.fetch(transport, server.url) == "{\"n\":0}")
        #expect(try await Self.fetch(transport, server.url) == "{\"n\":2}")
        #expect(server.accepted == 2)
        #expect(server.requests.count == 3)
    }

    @Test func aRequestIsRetriedOnlyOnce() async throws {
        let server = try KeepAliveServer { $0.index == 0 ? .answer(keptAnswer()) : .hangUp }
        defer { server.stop() }
        let transport = Self.transport()
        _ = try await Self.fetch(transport, server.url)
        await #expect(throws: TokenClientError.transport("the server closed the connection without an answer")) {
            try await Self.fetch(transport, server.url)
        }
        #expect(server.requests.count == 3, "the request, and once more on a new connection")
    }

    @Test func aCancelledFetchClosesItsKeptConnection() async throws {
        let release = Mutex(false)
        let server = try KeepAliveServer { request in
            if request.index == 1 {
                let end = ContinuousClock.now + .seconds(10)
                while !release.withLock({ $0 }), ContinuousClock.now < end { usleep(1000) }
            }
            return .answer(keptAnswer())
        }
        defer { server.stop() }
        let transport = Self.transport()
        _ = try await Self.fetch(transport, server.url)
        let fetch = Task { try await Self.fetch(transport, server.url) }
        #expect(await eventually { server.requests.count == 2 })
        fetch.cancel()
        await #expect(throws: CancellationError.self) { try await fetch.value }
        release.withLock { $0 = true }
        #expect(await eventually { server.closedByClient == 1 }, "the cancelled fetch's connection is closed, not kept")
        _ = try await Self.fetch(transport, server.url)
        #expect(server.accepted == 2)
    }

    @Test func aSlowServerDoesNotHoldUpAnotherExchangeOnTheSameTransport() async throws {
        let release = Mutex(false)
        let slow = try KeepAliveServer { _ in
            let end = ContinuousClock.now + .seconds(10)
            while !release.withLock({ $0 }), ContinuousClock.now < end { usleep(1000) }
            return .answer(keptAnswer())
        }
        defer { slow.stop() }
        let quick = try KeepAliveServer { _ in .answer(keptAnswer("{\"quick\":1}")) }
        defer { quick.stop() }
        let transport = Self.transport()
        let waiting = Task { try await Self.fetch(transport, slow.url) }
        #expect(await eventually { slow.requests.count == 1 })
        #expect(try await Self.fetch(transport, quick.url) == "{\"quick\":1}")
        #expect(!release.withLock { $0 }, "answered while the slow one still held its answer")
        release.withLock { $0 = true }
        #expect(try await waiting.value == "{}")
    }

    @Test func requestsBeyondTheConnectionsPerOriginWaitTheirTurnAndEachIsAnswered() async throws {
        let server = try KeepAliveServer { _ in
            usleep(5000)
            return .answer(keptAnswer())
        }
        defer { server.stop() }
        let transport = Self.transport(connectionsPerOrigin: 2)
        let bodies = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<12 { group.addTask { try? await Self.fetch(transport, server.url) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(bodies == Array(repeating: "{}", count: 12))
        #expect(server.mostOpen <= 2)
        #expect(server.accepted <= 2)
    }

    @Test func theWaitForAConnectionCountsAgainstTheDeadline() async throws {
        let server = try KeepAliveServer { _ in
            usleep(2_000_000)
            return .hangUp
        }
        defer { server.stop() }
        let transport = LoopHTTPTransport(limit: .milliseconds(300), connectionsPerOrigin: 1, idleLimit: Self.longIdle)
        async let first = LoopHTTPTransportTests.failure(LoopHTTPTransportTests.post(server.url), transport)
        async let second = LoopHTTPTransportTests.failure(LoopHTTPTransportTests.post(server.url), transport)
        let errors = await [first, second].map { $0 as? TokenClientError }
        #expect(errors == [.timeout(.milliseconds(300)), .timeout(.milliseconds(300))])
        #expect(server.requests.count == 1, "the second's deadline passed while the first held the one connection")
    }

    @Test func anIdleConnectionIsClosedOnceItsTimeIsUp() async throws {
        let server = try KeepAliveServer { _ in .answer(keptAnswer()) }
        defer { server.stop() }
        let transport = LoopHTTPTransport(userAgent: nil, limit: LoopHTTPTransportTests.transportLimit, trust: .system,
                                          connectionsPerOrigin: 1, idleLimit: .milliseconds(50))
        _ = try await Self.fetch(transport, server.url)
        #expect(await eventually { server.closedByClient == 1 }, "the client let the idle connection go")
        _ = try await Self.fetch(transport, server.url)
        #expect(server.accepted == 2)
    }

    @Test func aFreshRequestOpensAConnectionOfItsOwnAndClosesIt() async throws {
        let server = try KeepAliveServer { _ in .answer(keptAnswer()) }
        defer { server.stop() }
        let transport = Self.transport()
        _ = try await Self.fetch(transport, server.url)
        _ = try await transport.sendOnNewConnection(LoopHTTPTransportTests.post(server.url), bodyLimit: 100)
        #expect(server.accepted == 2)
        #expect(server.requests[1].contains("\r\nConnection: close\r\n"))
        #expect(await eventually { server.closedByClient == 1 })
        _ = try await Self.fetch(transport, server.url)
        #expect(server.accepted == 2, "the kept connection is still the pool's")
    }
}
