import Testing
@testable import HTTP1

/// What a client makes of a server's bytes, however they are split on the way.
@Suite struct ResponseParserTests {
    static let limit = 64

    /// Feeds `text` in pieces of `size` bytes, then the close when `closes`: the answer, or the refusal's words.
    static func read(_ text: String, in size: Int, closes: Bool = true, method: String = "GET") -> Result<HTTPReply, ResponseFailure> {
        var parser = ResponseParser(bodyLimit: limit, method: method)
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            switch parser.read(bytes[start..<min(start + size, bytes.count)]) {
            case .needMore: start += size
            case .response(let reply): return .success(reply)
            case .failed(let failure): return .failure(failure)
            }
        }
        guard closes else { return .failure(.cut("still waiting")) }
        switch parser.closed() {
        case .response(let reply): return .success(reply)
        case .failed(let failure): return .failure(failure)
        case .needMore: return .failure(.cut("needs more after the close"))
        }
    }

    static let splits = [1, 2, 7, 4096]

    @Test(arguments: splits)
    func bodiesFramedEachWayArriveWhole(size: Int) throws {
        let answers = [
            "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n{\"a\":1}ignored after the answer",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;name=\"x\"\r\n{\"a\r\n4 \r\n\":1}\r\n0\r\nX-Checksum: 1\r\nX-Other: 2\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTRANSFER-ENCODING: Chunked\r\n\r\n7\r\n{\"a\":1}\r\n0\r\n\r\n",
            "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{\"a\":1}",
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n{\"a\":1}",
        ]
        for text in answers {
            let answer = try Self.read(text, in: size).get()
            #expect(answer.status == 200)
            #expect(String(decoding: answer.body, as: UTF8.self) == #"{"a":1}"#, "\(text.debugDescription)")
        }
    }

    @Test func fieldsKeepTheirValuesAndRepeatsAreJoined() throws {
        let answer = try Self.read("HTTP/1.1 429 Too Many\r\nRetry-After:  7 \r\nVary: a\r\nvary: b\r\nContent-Length: 0\r\n\r\n", in: 4096).get()
        #expect(answer.status == 429)
        #expect(answer.header("retry-after") == "7")
        #expect(answer.header("Vary") == "a, b")
    }

    @Test func answersWithoutABodyEndAtTheirHead() throws {
        for text in ["HTTP/1.1 204 No Content\r\n\r\n", "HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n"] {
            #expect(try Self.read(text, in: 3, closes: false).get().body.isEmpty)
        }
        #expect(try Self.read("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", in: 3, closes: false, method: "HEAD").get().body.isEmpty)
    }

    @Test(arguments: splits)
    func aBodyPastTheLimitIsRefusedBeforeItIsKept(size: Int) {
        let flood = String(repeating: "a", count: 65)
        #expect(Self.read("HTTP/1.1 200 OK\r\nContent-Length: 65\r\n\r\n", in: size, closes: false)
            == .failure(.tooLong(bytes: 65, limit: Self.limit)))
        #expect(Self.read("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n", in: size, closes: false)
            == .failure(.tooLong(bytes: nil, limit: Self.limit)))
        #expect(Self.read("HTTP/1.1 200 OK\r\n\r\n" + flood, in: size, closes: false) == .failure(.tooLong(bytes: nil, limit: Self.limit)))
        #expect(Self.read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3f\r\n" + flood.dropLast(2) + "\r\n2\r\n", in: size, closes: false)
            == .failure(.tooLong(bytes: nil, limit: Self.limit)), "the second chunk's size passes the limit: refused before its byte")
        #expect(Self.read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffffff\r\n", in: size, closes: false)
            == .failure(.tooLong(bytes: nil, limit: Self.limit)), "a size no Int holds is checked before arithmetic")
    }

    /// A cut answer is a clear error, never a crash (the shapes FoundationNetworking traps on among them).
    @Test(arguments: [
        ("", "the server closed the connection without an answer"),
        ("HTTP/1.1 200 OK\r\nX-Slow: aaa", "the connection closed before the whole answer: inside its head, which must end with a blank line"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{\"tok", "the connection closed before the whole answer: 5 bytes of its Content-Length did not come"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nX-Checksum: 1\r\n",
         "the connection closed before the whole answer: inside its chunked body, which must end with a zero-size chunk"),
    ])
    func aCutAnswerSaysWhereItWasCut(text: String, words: String) {
        for size in Self.splits {
            #expect(Self.read(text, in: size) == .failure(.cut(words)))
        }
    }

    @Test(arguments: [
        ("HTTP/2 200\r\n\r\n", "its first line is not an HTTP/1.x status line: \"HTTP/2 200\""),
        ("HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n", "its head folds a field onto the next line (obs-fold), which HTTP/1.1 forbids"),
        ("HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", "its head holds a CR that is not before an LF"),
        ("HTTP/1.1 200 OK\nX: a\r\n\r\n", "its head ends a line with a bare LF; HTTP/1.1 lines end in CR LF"),
        ("HTTP/1.1 200 OK\r\nX : a\r\n\r\n", "its head has a line that is not a field (name: value): \"X : a\""),
        ("HTTP/1.1 200 OK\r\nX: \u{1b}[2J\r\n\r\n", "its field X holds a control character"),
        ("HTTP/1.1 99 Odd\r\n\r\n", "its first line is not an HTTP/1.x status line: \"HTTP/1.1 99 Odd\""),
        ("HTTP/1.1 700 Odd\r\n\r\n", "its status 700 is not one HTTP defines (100 to 599)"),
        ("HTTP/1.1 101 Switching Protocols\r\n\r\n", "it switches protocols (HTTP 101) when none was asked for"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}", "it has 2 Content-Length fields; one is allowed"),
        ("HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\n{}", "its Content-Length \"+2\" is not a number of bytes"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n", "it has both Content-Length and Transfer-Encoding, which hides where it ends"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", "its Transfer-Encoding is \"gzip, chunked\"; tokencall reads only chunked, and asks for no compression"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "a chunk size is not hexadecimal: \"zz\""),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\n{}", "a chunk-size line does not end in CR LF"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}xx", "a chunk's data is not followed by CR LF"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: 1\n\r\n", "a line of its chunked trailer does not end in CR LF"),
    ])
    func aMisframedAnswerIsRefusedInWords(text: String, words: String) {
        for size in Self.splits {
            #expect(Self.read(text, in: size) == .failure(.malformed(words)), "split \(size)")
        }
    }

    /// A head, a trailer or a chunk-size line that never ends is refused once it passes its limit, not kept.
    @Test func endlessLinesAreRefusedAtTheirLimits() {
        let endless = String(repeating: "a", count: ResponseParser.headLimit)
        let tooLong = { (words: String) in ResponseFailure.malformed(words) }
        #expect(Self.read("HTTP/1.1 200 OK\r\nX: " + endless, in: 512, closes: false) == .failure(tooLong("its head is longer than 16384 bytes")))
        let interim = String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 1000)
        #expect(Self.read(interim, in: 512, closes: false) == .failure(tooLong("its head is longer than 16384 bytes")), "interim heads count too")
        #expect(Self.read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: " + endless, in: 512, closes: false)
            == .failure(tooLong("its chunked trailer is longer than 16384 bytes")))
        #expect(Self.read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + endless, in: 512, closes: false)
            == .failure(tooLong("a chunk-size line is longer than 1024 bytes")))
    }
}
