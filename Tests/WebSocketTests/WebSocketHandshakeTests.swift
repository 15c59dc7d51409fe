import Foundation
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

@Suite struct WebSocketClientHandshakeTests {
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="  // RFC 6455 §1.3's example, answered with s3pPLMBiTxaQ9kYGzzhZRbK+xOo=

    private func check(_ head: String) -> Result<Void, WebSocketHandshake.AnswerRefusal> {
        WebSocketHandshake.checkAnswer(Array(head.utf8), key: Self.key)
    }

    @Test func theRFCsAnswerOpensTheConnectionWhateverTheHeadersCase() {
        let answer = "HTTP/1.1 101 Switching Protocols\r\nupgrade: WebSocket\r\nCONNECTION: keep-alive, Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        #expect((try? check(answer).get()) != nil)
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 0", "not 101 Switching Protocols"),
        ("HTTP/1.0 101 Switching Protocols", "not an HTTP/1.1 answer"),
        ("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "Upgrade is not websocket"),
        ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOp=",
         "Sec-WebSocket-Accept is not the one for the key sent"),
        ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Extensions: permessage-deflate",
         "it names an extension or subprotocol, and none was asked for"),
    ])
    func anyOtherAnswerIsRefusedWithItsStatusLine(_ head: String, _ problem: String) {
        guard case .failure(let refusal) = check(head) else { Issue.record("taken: \(head)"); return }
        #expect(refusal.problem == problem)
        #expect(refusal.statusLine == head.components(separatedBy: "\r\n")[0])
    }

    @Test func aClientRequestCarriesItsKeyAndVersion13() {
        let request = String(decoding: WebSocketHandshake.clientRequest(target: "/hub?channel=a", host: "127.0.0.1:8082", key: Self.key), as: UTF8.self)
        #expect(request == "GET /hub?channel=a HTTP/1.1\r\nHost: 127.0.0.1:8082\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(Self.key)\r\nSec-WebSocket-Version: 13\r\n\r\n")
        #expect(WebSocketHandshake.randomKey() != WebSocketHandshake.randomKey())
        #expect(Data(base64Encoded: WebSocketHandshake.randomKey())?.count == 16)
    }
}
