@testable import HTTP1
import Testing

/// What a client is answered when its request cannot be read, however its bytes arrive: the status and the words of
/// the refusal (the server sends them as `{"error": words}` and closes, `MachineParsingTests`), and that nothing after
/// a refusal is read.
@Suite struct RefusalTests {
    static let malformed: [(name: String, raw: String, status: Int, words: String)] = [
        ("garbage", "\u{01}\u{02}\u{03}garbage\r\n\r\n", 400, "malformed request line; expected METHOD /path HTTP/1.1, one space apart"),
        ("no version", "GET /ping\r\n\r\n", 400, "malformed request line"),
        ("bad version", "GET /ping HTTP/9.9\r\n\r\n", 400, "unsupported protocol \"HTTP/9.9\"; use HTTP/1.1"),
        ("header without colon", "GET /ping HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n", 400, "malformed header line; expected Name: value"),
        ("non-numeric length", "POST /getToken HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ten\r\n\r\n", 400,
         "Content-Length \"ten\" is not a byte count; send digits only"),
        ("conflicting lengths", "POST /getToken HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}", 400,
         "conflicting Content-Length headers; send one"),
        ("POST without length", "POST /getToken HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 411, "a POST needs a Content-Length header"),
        ("chunked", "POST /getToken HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 411,
         "chunked bodies are not accepted; send the body with a Content-Length"),
        ("body over 16 KiB", "POST /getToken HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 16385\r\n\r\n", 413,
         "the body is 16385 bytes; at most 16384 are accepted"),
        ("bare LF line ends", "GET /ping HTTP/1.1\nHost: x\n\n", 400, "LF without CR"),
        ("headers over 8 KiB", "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: \(String(repeating: "a", count: 9000))\r\n\r\n", 431,
         "the request headers are over 8192 bytes"),
    ]

    /// Requests a lenient reader and a proxy in front of it could read two ways (RFC 9112).
    static let ambiguous: [(name: String, raw: String, status: Int, words: String)] = [
        ("LF alone inside a header hides another", "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX: a\nTransfer-Encoding: chunked\r\n\r\n", 400, "LF without CR"),
        ("CR alone inside a header hides another", "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX: a\rTransfer-Encoding: chunked\r\n\r\n", 400, "CR without LF"),
        ("CR alone in the request line", "GET /ping\r HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400, "CR without LF"),
        ("LF alone, before the head is whole", "GET /ping HTTP/1.1\r\nHost: x\nX: y", 400, "LF without CR"),
        ("signed Content-Length", "POST /getToken HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: +2\r\n\r\n{}", 400, "send digits only"),
        ("Content-Length as a list", "POST /getToken HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2, 2\r\n\r\n{}", 400, "send digits only"),
        ("empty Content-Length", "POST /getToken HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length:\r\n\r\n", 400, "send digits only"),
        ("Content-Length past Int", "POST /getToken HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 99999999999999999999999\r\n\r\n", 413, "at most 16384"),
        ("Transfer-Encoding beside Content-Length",
         "POST /getToken HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}", 400, "both Transfer-Encoding and Content-Length"),
        ("obsolete line folding", "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX: a\r\n b\r\n\r\n", 400, "line folding"),
        ("space before the colon", "GET /ping HTTP/1.1\r\nHost : x\r\n\r\n", 400, "space before its colon"),
        ("a control byte in a value", "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX: a\u{01}b\r\n\r\n", 400, "control character byte 0x01"),
        ("DEL in a value", "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX: a\u{7f}\r\n\r\n", 400, "control character byte 0x7F"),
        ("a separator in a header name", "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX(y): z\r\n\r\n", 400, "header name has \"(\""),
        ("a separator in the method", "G(T /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400, "method has \"(\""),
        ("a control byte in the target", "GET /pi\u{01}ng HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400, "percent-encoded (%01)"),
        ("raw UTF-8 in the target", "GET /rtc/caf\u{e9}/1/uid/1/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400, "percent-encoded (%C3)"),
        ("a quote in the target", "GET /ping\"x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400, "percent-encoded (%22)"),
        ("two spaces in the request line", "GET  /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400, "one space apart"),
        ("no Host in HTTP/1.1", "GET /ping HTTP/1.1\r\n\r\n", 400, "needs a Host header"),
        ("two Hosts", "GET /ping HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "2 Host headers"),
        ("two Hosts in HTTP/1.0", "GET /ping HTTP/1.0\r\nHost: a\r\nhost: a\r\n\r\n", 400, "2 Host headers"),
    ]

    /// The refusal `raw` gets when it arrives in pieces of `size` bytes, and whether a good request after it is read.
    static func refusal(_ raw: String, in size: Int) -> (HTTPRefusal?, readsOn: Bool) {
        var parser = RequestParser()
        let bytes = Array(raw.utf8)
        var refusal: HTTPRefusal?
        for start in stride(from: 0, to: bytes.count, by: size) {
            if case .refused(let given) = parser.read(bytes[start..<min(start + size, bytes.count)]) {
                refusal = given
                break
            }
        }
        guard case .refused = parser.read(Array("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n".utf8)[...]) else { return (refusal, true) }
        return (refusal, false)
    }

    @Test(arguments: malformed + ambiguous, RequestParserTests.splits)
    func aRequestThatCannotBeReadIsRefusedInWordsAndNothingAfterItIsRead(
        _ refused: (name: String, raw: String, status: Int, words: String), size: Int
    ) {
        let (refusal, readsOn) = Self.refusal(refused.raw, in: size)
        #expect(refusal?.status == refused.status, "\(refused.name)")
        #expect(refusal?.message.contains(refused.words) == true, "\(refused.name): \(refusal?.message ?? "not refused")")
        #expect(!readsOn, "\(refused.name): the connection ends with its refusal")
    }

    /// Content-Length frames the body exactly: what follows it is the next request, read as one.
    @Test(arguments: RequestParserTests.splits)
    func aBodyLongerThanItsLengthIsReadAsTheNextRequest(size: Int) {
        #expect(RequestParserTests.verdicts("POST /fetch_rtc_token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}junk\r\n\r\n", in: size) == [
            "POST /fetch_rtc_token [:] {}",
            "refused 400: malformed request line; expected METHOD /path HTTP/1.1, one space apart",
        ])
    }

    /// Strict is not fussy: spaces and tabs around a value, UTF-8 in it, a Content-Length repeated alike with a
    /// leading zero, and an HTTP/1.0 request without Host are all read.
    @Test(arguments: RequestParserTests.splits)
    func strictIsNotFussy(size: Int) {
        let body = #"{"uid": 1, "channelName": "a"}"#
        let raw = "POST /fetch_rtc_token HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Name:\t caf\u{e9} \t\r\nContent-Length: 0\(body.utf8.count)\r\n"
            + "Content-Length: 0\(body.utf8.count)\r\n\r\n\(body)" + "GET /ping HTTP/1.0\r\n\r\n"
        #expect(RequestParserTests.verdicts(raw, in: size) == ["POST /fetch_rtc_token [:] \(body)", "GET /ping [:] ", "waiting"])
        var parser = RequestParser()
        guard case .request(let request, _) = parser.read(Array(raw.utf8)[...]) else { Issue.record("not read"); return }
        #expect(request.header("x-name") == "caf\u{e9}")
    }
}
