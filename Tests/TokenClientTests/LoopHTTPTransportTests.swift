import Foundation
import HTTP1
import Synchronization
import TestSupport
import Testing
@testable import TokenClient

/// tokencall's own HTTP/1.1 for http:// token servers, on real sockets: what a user would notice of each answer, and of
/// connections kept between them.
@Suite struct LoopHTTPTransportTests {
    /// A limit no test reaches: while every thread of the test process's cooperative pool is held by a blocking
    /// test (one waits for a child process), the step to the next hop can wait a minute, which the limit counts.
    static let transportLimit = Duration.seconds(600)
    static let transport = LoopHTTPTransport(userAgent: "tokencall/test", limit: transportLimit)

    static func post(_ url: URL, path: String = "/fetch_rtc_token?x=1", headers: HTTPFields = []) -> HTTPRequest {
        var request = HTTPRequest(method: "POST", url: URL(string: path, relativeTo: url)!.absoluteURL, fields: [("Content-Type", "application/json")],
                                  body: Array(#"{"uid":1}"#.utf8))
        for field in headers { request.fields.set(field.name, field.value) }
        return request
    }

    static func failure(_ request: HTTPRequest, _ transport: LoopHTTPTransport = transport) async -> (any Error)? {
        do {
            _ = try await transport.send(request, bodyLimit: HTTPTokenProvider.bodyLimit)
            return nil
        } catch {
            return error
        }
    }

    /// The two answers that end a process reading them with FoundationNetworking (#5285) are read in this one.
    @Test func theAnswersThatCrashFoundationNetworkingAreReadInProcess() async throws {
        let cut = try HostileServer { HostileServerTests.TransportCrash.EndlessHead.closedInsideTheHead.write(to: $0) }
        defer { cut.stop() }
        let error = await Self.failure(Self.post(cut.url))
        #expect(error as? TokenClientError
            == .transport("the connection closed before the whole answer: inside its head, which must end with a blank line"))

        let trailer = try HostileServer { HostileServerTests.TransportCrash.EndlessHead.chunkedTrailer.write(to: $0) }
        defer { trailer.stop() }
        let (reply, _) = try await Self.transport.send(Self.post(trailer.url), bodyLimit: HTTPTokenProvider.bodyLimit)
        #expect(reply.status == 200)
        #expect(reply.body == Array("{}".utf8))
    }

    @Test func theRequestGoesAsAskedWithNoCredentialOfItsOwn() async throws {
        let server = try HostileServer { $0.write(head("204 No Content")) }
        defer { server.stop() }
        _ = try await Self.transport.send(Self.post(server.url, headers: [("Authorization", "Bearer user-cred")]), bodyLimit: 100)
        _ = try await Self.transport.send(Self.post(server.url, headers: [("User-Agent", "mine")]), bodyLimit: 100)
        let (first, second) = (server.requests[0], server.requests[1])
        #expect(first.hasPrefix("POST /fetch_rtc_token?x=1 HTTP/1.1\r\n"))
        for line in ["Host: 127.0.0.1:\(server.port)", "Content-Length: 9", "Content-Type: application/json",
                     "Authorization: Bearer user-cred", "User-Agent: tokencall/test"] {
            #expect(first.contains("\r\n\(line)\r\n"), "\(line) in \(first)")
        }
        #expect(first.hasSuffix("\r\n\r\n{\"uid\":1}"))
        #expect(!first.lowercased().contains("connection:"), "HTTP/1.1 keeps the connection unless told otherwise")
        #expect(!second.lowercased().contains("authorization"))
        #expect(second.contains("\r\nUser-Agent: mine\r\n") && !second.contains("tokencall/test"), "the request's own agent is kept")
    }

    @Test func aChunkedAnswerDrippingInPiecesArrivesWhole() async throws {
        let server = try HostileServer { connection in
            let pieces = [head("200 OK", ["Transfer-Encoding: chunked"]), "4;ext=1\r\n{\"to", "\r\n", "5\r\nken\":", "\r\n3\r\n1}\n\r\n0\r\n", "\r\n"]
            for piece in pieces {
                guard connection.write(piece) else { return }
                usleep(2000)
            }
            connection.waitForClose(upTo: .seconds(5))
        }
        defer { server.stop() }
        let (reply, _) = try await Self.transport.send(Self.post(server.url), bodyLimit: HTTPTokenProvider.bodyLimit)
        #expect(String(decoding: reply.body, as: UTF8.self) == "{\"token\":1}\n")
    }

    @Test func anEndlessChunkedAnswerIsCutOffAtTheLimitAndTheConnectionClosed() async throws {
        let server = try HostileServer { connection in
            guard connection.write(head("200 OK", ["Transfer-Encoding: chunked"])) else { return }
            let chunk = "1000\r\n" + String(repeating: "a", count: 4096) + "\r\n"
            for _ in 0..<16_384 {
                guard connection.write(chunk) else { return }
            }
        }
        defer { server.stop() }
        #expect(await Self.failure(Self.post(server.url)) as? TokenClientError == .answerTooLong(bytes: nil, limit: HTTPTokenProvider.bodyLimit))
        #expect(await eventually { server.clientClosed }, "the client hung up instead of reading on")
        #expect(server.bytesSent < 4 << 20, "the server's count includes the kernel's socket buffers")
    }

    @Test func aCancelledFetchFromASilentServerEndsAtOnceAndHangsUp() async throws {
        let server = try HostileServer { $0.waitForClose(upTo: .seconds(30)) }
        defer { server.stop() }
        let fetch = Task { try await Self.transport.send(Self.post(server.url), bodyLimit: HTTPTokenProvider.bodyLimit) }
        #expect(await eventually { server.requests.count == 1 })
        fetch.cancel()
        await #expect(throws: CancellationError.self) { try await fetch.value }
        #expect(await eventually { server.clientClosed })
    }

    @Test func aSilentServerIsGivenUpAtTheTransportsOwnLimit() async throws {
        let server = try HostileServer { $0.waitForClose(upTo: .seconds(30)) }
        defer { server.stop() }
        let bounded = LoopHTTPTransport(limit: .milliseconds(200))
        #expect(await Self.failure(Self.post(server.url), bounded) as? TokenClientError == .timeout(.milliseconds(200)))
        #expect(await eventually { server.clientClosed })
    }

    @Test(arguments: [(303, "GET", ""), (302, "GET", ""), (308, "POST", #"{"uid":1}"#)])
    func aRedirectRepeatsTheRequestAsItsStatusSays(status: Int, method: String, body: String) async throws {
        let server = try HostileServer { connection in
            if connection.index == 0 {
                connection.write(head("\(status) Moved", ["Location: /v2/token", "Content-Length: 0"]))
            } else {
                connection.write(head("200 OK", ["Content-Length: 2"]) + "{}")
            }
        }
        defer { server.stop() }
        let (_, url) = try await Self.transport.send(Self.post(server.url), bodyLimit: 100)
        #expect(url.path == "/v2/token")
        let second = try #require(server.requests.dropFirst().first)
        #expect(second.hasPrefix("\(method) /v2/token HTTP/1.1\r\n"))
        #expect(second.hasSuffix("\r\n\r\n" + body))
        #expect(second.contains("Content-Type") == (method == "POST"))
    }

    @Test func anHTTPSRequestIsNotSentInPlainText() async throws {
        let server = try HostileServer { $0.write(head("204 No Content")) }
        defer { server.stop() }
        let secure = Self.post(try #require(URL(string: "https://127.0.0.1:\(server.port)")))
        let error = await Self.failure(secure) as? TokenClientError
        #expect(error?.description.contains("TLS: the server's answer is not TLS") == true, "\(String(describing: error))")
        #expect(server.requests.count == 1)
        #expect(server.requests.allSatisfy { !$0.contains("POST") && !$0.contains("uid") })
    }

    @Test func nobodyListeningIsAConnectionRefused() async throws {
        let request = Self.post(try #require(URL(string: "http://127.0.0.1:1")))
        #expect(await Self.failure(request) as? TokenClientError == .transport("connection refused"))
    }
}
