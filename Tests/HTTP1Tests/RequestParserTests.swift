import Foundation
import Testing
@testable import HTTP1
import SeededRandom

/// What a server makes of a client's bytes, however they are split on the way: the verdicts, each request's values,
/// and the bytes each request used, so that what follows it (a pipelined request, a WebSocket's frames) is left.
@Suite struct RequestParserTests {
    /// Feeds `text` in pieces of `size` bytes: each request, then the refusal or how many bytes were taken while
    /// waiting for more.
    static func verdicts(_ text: String, in size: Int) -> [String] {
        var parser = RequestParser()
        let bytes = Array(text.utf8)
        var seen: [String] = []
        var start = 0
        while start < bytes.count {
            var piece = bytes[start..<min(start + size, bytes.count)]
            start += size
            reading: while true {
                switch parser.read(piece) {
                case .needMore: break reading
                case .refused(let refusal): return seen + ["refused \(refusal)"]
                case .request(let request, let consumed):
                    seen.append("\(request.method) \(request.path) \(request.query) \(String(decoding: request.body, as: UTF8.self))")
                    piece = piece.dropFirst(consumed)
                    if piece.isEmpty { break reading }
                }
            }
        }
        return seen + ["waiting"]
    }

    static let splits = [1, 2, 3, 7, 4096]

    @Test(arguments: splits)
    func pipelinedRequestsAreReadOneByOne(size: Int) {
        let text = "POST /fetch_rtc_token HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n{\"a\":1}"
            + "GET /rtc/a%20b/1/uid/5/?expiry=60&x=%41+b HTTP/1.1\r\nHost: x\r\n\r\n"
            + "HEAD /ping HTTP/1.0\r\n\r\nGET /pi"
        #expect(Self.verdicts(text, in: size) == [
            "POST /fetch_rtc_token [:] {\"a\":1}",
            "GET /rtc/a b/1/uid/5/ [\"expiry\": \"60\", \"x\": \"A b\"] ",
            "HEAD /ping [:] ",
            "waiting",
        ] || Self.verdicts(text, in: size) == [
            "POST /fetch_rtc_token [:] {\"a\":1}",
            "GET /rtc/a b/1/uid/5/ [\"x\": \"A b\", \"expiry\": \"60\"] ",
            "HEAD /ping [:] ",
            "waiting",
        ])
    }

    @Test(arguments: splits)
    func aRefusalIsTheSameHoweverTheBytesArrive(size: Int) {
        let cases = [
            ("GET /ping HTTP/1.1\r\nHost: x\r\nX: a\nY: b\r\n\r\n", "400: the request head has an LF without CR before it; HTTP lines end with CR LF"),
            ("GET /ping HTTP/1.1\r\nHost: x\r\nX: a\rY\r\n\r\n", "400: the request head has a CR without LF after it; end each line with CR LF"),
            ("POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", "411: chunked bodies are not accepted; send the body with a Content-Length"),
            ("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 16385\r\n\r\n", "413: the body is 16385 bytes; at most 16384 are accepted"),
            ("GET /a%FF HTTP/1.1\r\nHost: x\r\n\r\n", "400: the request path has a malformed %-escape; write % as %25"),
            ("GET http://x/ HTTP/1.1\r\nHost: x\r\n\r\n", "400: the request target must start with /; send the path, such as /ping"),
            ("GET / HTTP/2\r\nHost: x\r\n\r\n", "400: unsupported protocol \"HTTP/2\"; use HTTP/1.1"),
            ("\r\n\r\n", "400: malformed request line; expected METHOD /path HTTP/1.1, one space apart"),
        ]
        for (text, words) in cases {
            #expect(Self.verdicts(text, in: size) == ["refused \(words)"], "\(text.debugDescription)")
        }
    }

    /// The closing CR LF CR LF may start at byte 8192 at the latest; a head that has not ended by then is refused at
    /// once, before more of it is kept.
    @Test(arguments: splits)
    func aHeadPastTheLimitIsRefusedWhenItPassesIt(size: Int) {
        let line = "GET / HTTP/1.1\r\nHost: x\r\nX: "
        let fits = line + String(repeating: "a", count: RequestParser.maxHeaderBytes - line.utf8.count) + "\r\n\r\n"
        #expect(Self.verdicts(fits, in: size) == ["GET / [:] ", "waiting"])
        let over = line + String(repeating: "a", count: RequestParser.maxHeaderBytes - line.utf8.count + 3)
        #expect(Self.verdicts(over, in: size) == ["refused 431: the request headers are over 8192 bytes"])
        #expect(Self.verdicts(String(over.dropLast()), in: size) == ["waiting"])
    }

    @Test func aRequestUsesItsHeadAndBodyAndNoMore() {
        var parser = RequestParser()
        let bytes = Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\n".utf8)
        guard case .request(let request, let consumed) = parser.read(bytes[...]) else { Issue.record("no request"); return }
        #expect(request.target == "/a" && request.header("host") == "x" && consumed == 28)
        guard case .needMore = parser.read(bytes[consumed...]) else { Issue.record("the second request is not whole"); return }
    }

    @Test func keepAliveFollowsTheVersionAndConnectionsList() {
        func request(_ version: String, _ connection: String?) -> HTTPRequest {
            HTTPRequest(target: "/", version: version, fields: connection.map { [("Connection", $0)] } ?? [])
        }
        #expect(request("HTTP/1.1", nil).keepAlive)
        #expect(!request("HTTP/1.1", "keep-alive, Close").keepAlive)
        #expect(!request("HTTP/1.0", nil).keepAlive)
        #expect(request("HTTP/1.0", " Keep-Alive ").keepAlive)
    }

    @Test func targetsDecodeAsFoundationDecodes() {
        var random = SplitMix64(seed: 2)
        let characters: [Character] = ["a", "/", "%", "2", "0", "4", "1", "F", "+", "=", "&", "?", "é", "~"]
        for _ in 0..<5_000 {
            let target = "/" + String((0..<Int(random.next() % 12)).map { _ in random.pick(characters) })
            let request = HTTPRequest(target: target)
            let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            #expect(request.path == (String(parts[0]).removingPercentEncoding ?? String(parts[0])), "\(target.debugDescription)")
            var query: [String: String] = [:]
            if parts.count == 2 {
                for pair in parts[1].split(separator: "&") {
                    let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    let name = String(kv[0]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(kv[0])
                    query[name] = kv.count > 1 ? (String(kv[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "") : ""
                }
            }
            #expect(request.query == query, "\(target.debugDescription)")
        }
    }

    @Test func fieldNamesCompareWithoutASCIICase() {
        var random = SplitMix64(seed: 3)
        let letters: [Character] = ["a", "A", "z", "Z", "-", "@", "`", "[", "{", "_", "0", "s", "S", "k", "K"]
        for _ in 0..<20_000 {
            let a = String((0..<Int(random.next() % 5)).map { _ in random.pick(letters) })
            let b = random.below(100) < 50 ? String(a.map { random.below(100) < 50 ? Character($0.uppercased()) : Character($0.lowercased()) })
                                      : String((0..<Int(random.next() % 5)).map { _ in random.pick(letters) })
            #expect(FieldName.equal(a, b) == (a.caseInsensitiveCompare(b) == .orderedSame), "\(a) \(b)")
        }
        #expect(!FieldName.equal("É", "é"), "beyond ASCII, bytes compare as they are: no field name has them")
    }
}

/// What each direction writes reads back as it was.
@Suite struct SerializationTests {
    @Test func aRequestReadsBackAsWritten() {
        let sent = HTTPRequest(method: "POST", target: "/fetch_rtc_token?x=1",
                               fields: [("Host", "127.0.0.1:8080"), ("Content-Length", "2"), ("X-Name", "café")], body: Array("{}".utf8))
        #expect(String(decoding: sent.serialized(), as: UTF8.self)
            == "POST /fetch_rtc_token?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 2\r\nX-Name: café\r\n\r\n{}")
        var parser = RequestParser()
        guard case .request(let read, let consumed) = parser.read(sent.serialized()[...]) else { Issue.record("not read back"); return }
        #expect(read.method == sent.method && read.target == sent.target && read.fields == sent.fields && read.body == sent.body)
        #expect(consumed == sent.serialized().count)
    }

    @Test func aReplyReadsBackAsWritten() {
        let sent = HTTPReply(status: 429, fields: [("Retry-After", "7"), ("Content-Length", "2")], body: Array("{}".utf8))
        #expect(String(decoding: sent.serialized(), as: UTF8.self) == "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\nContent-Length: 2\r\n\r\n{}")
        var parser = ResponseParser(bodyLimit: 100, method: "GET")
        #expect(parser.read(sent.serialized()[...]) == .response(sent))
        #expect(String(decoding: HTTPReply(status: 299).serialized(), as: UTF8.self) == "HTTP/1.1 299 Status 299\r\n\r\n")
        #expect(sent.serialized(withBody: false).count == sent.serialized().count - 2)
    }

    @Test func fieldsAreSetAndLookedUpInAnyCase() {
        var fields: HTTPFields = [("Vary", "a"), ("content-type", "text/html"), ("vary", "b")]
        #expect(fields.value("VARY") == "a, b" && fields.first("vary") == "a")
        fields.set("Content-Type", "application/json")
        #expect(fields.list.map(\.name) == ["Vary", "Content-Type", "vary"] && fields.first("content-type") == "application/json")
        fields.set("VARY", nil)
        #expect(fields.list == [HTTPFields.Field(name: "Content-Type", value: "application/json")])
        #expect(HTTPFields.Field(name: "X", value: "a\r\nInjected: 1").isSendable == false)
        #expect(HTTPFields.Field(name: "X Y", value: "a").isSendable == false)
        #expect(HTTPFields.Field(name: "X-Y", value: "a\tb").isSendable)
    }
}
