import HTTP1
import Testing
@testable import WebServer

/// A request the parser refuses is answered by the connection as the client sees it: the status and
/// `{"error": words}`, and no request after it is served (`RefusalTests` has every refusal the parser gives).
@Suite struct MachineParsingTests {
    @Test(arguments: [
        ("garbage", "\u{01}\u{02}\u{03}garbage\r\n\r\n", 400, "malformed request line; expected METHOD /path HTTP/1.1, one space apart"),
        ("chunked", "POST /getToken HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 411,
         "chunked bodies are not accepted; send the body with a Content-Length"),
        ("body over 16 KiB", "POST /getToken HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 16385\r\n\r\n", 413,
         "the body is 16385 bytes; at most 16384 are accepted"),
        ("headers over 8 KiB", "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: \(String(repeating: "a", count: 9000))\r\n\r\n", 431,
         "the request headers are over 8192 bytes"),
    ])
    func aRefusedRequestIsAnsweredWithItsStatusAndWordsAndNothingAfterItIsServed(name: String, raw: String, status: Int, words: String) {
        let start = ContinuousClock.now
        let times = HTTPConnectionMachine.Times(requestDeadline: .seconds(10), idleTimeout: .seconds(30), sendTimeout: .seconds(5),
                                                lingerTimeout: .seconds(2))
        var machine = HTTPConnectionMachine(now: start, times: times, handshaking: false)
        guard case .refuse(let response, _) = machine.received(Array(raw.utf8), now: start) else {
            Issue.record("\(name): not refused")
            return
        }
        #expect(response.status == status, "\(name)")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"\#(words)"}"#, "\(name)")
        if case .serve = machine.received(Array("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n".utf8), now: start) {
            Issue.record("\(name): a request after the refusal was served")
        }
    }
}
