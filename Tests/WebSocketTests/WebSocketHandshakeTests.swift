import Testing
import WebSocket

@Suite struct WebSocketHandshakeTests {
    let good = [
        "Host": "127.0.0.1:8082", "Upgrade": "websocket", "Connection": "keep-alive, Upgrade",
        "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    ]

    func accept(_ headers: [String: String], method: String = "GET", version: String = "HTTP/1.1") -> Result<String, WebSocketHandshake.Refusal> {
        WebSocketHandshake.accept(method: method, version: version) { name in
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
    }

    @Test func answersTheRFCsSampleKey() {
        #expect(accept(good) == .success("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="))
        var upper = good
        upper["Upgrade"] = "WebSocket"
        #expect(accept(upper) == .success("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="))
    }

    @Test(arguments: [
        ("POST", "HTTP/1.1", "Upgrade", "websocket", "a GET"),
        ("GET", "HTTP/1.0", "Upgrade", "websocket", "HTTP/1.1"),
        ("GET", "HTTP/1.1", "Upgrade", "h2c", "Upgrade: websocket"),
        ("GET", "HTTP/1.1", "Connection", "keep-alive", "must list Upgrade"),
        ("GET", "HTTP/1.1", "Sec-WebSocket-Key", "c2hvcnQ=", "16 random bytes"),
        ("GET", "HTTP/1.1", "Sec-WebSocket-Key", "not base64 at all!!!!!!!", "16 random bytes"),
    ])
    func refusesWhatIsNotAHandshakeWith400(method: String, version: String, header: String, value: String, says: String) throws {
        var headers = good
        headers[header] = value
        guard case .failure(let refusal) = accept(headers, method: method, version: version) else {
            Issue.record("accepted \(method) \(version) with \(header): \(value)")
            return
        }
        #expect(refusal.status == 400)
        #expect(refusal.message.contains(says))
    }

    @Test func refusesAnotherVersionWith426() {
        var headers = good
        headers["Sec-WebSocket-Version"] = "8"
        for version in ["8", nil] {
            headers["Sec-WebSocket-Version"] = version
            guard case .failure(let refusal) = accept(headers) else { return #expect(Bool(false)) }
            #expect(refusal.status == 426)
            #expect(refusal.message.contains("Sec-WebSocket-Version: 13"))
        }
    }
}
