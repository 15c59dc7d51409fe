import SeededRandom
import Testing
@testable import WebServer

/// What the server writes without Foundation's coders, and how many connections it takes on.
@Suite struct ResponseWritingTests {
    @Test func plainTextIsFoundEightBytesAtATimeAsOneAtATime() {
        var random = SplitMix64(seed: 8)
        let bytes: [UInt8] = [0x00, 0x1F, 0x20, 0x21, 0x22, 0x5B, 0x5C, 0x5D, 0x7E, 0x7F, 0x80, 0xFF, 0x41, 0x61, 0x30]
        for _ in 0..<50_000 {
            let text = (0..<Int(random.next() % 40)).map { _ in random.below(100) < 90 ? UInt8(ascii: "a") + UInt8(random.next() % 26) : random.pick(bytes) }
            let expected = text.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
            #expect(text.withUnsafeBufferPointer(PlainJSON.isPlain) == expected, "\(text)")
        }
    }

    @Test func responsesSerializeAsBefore() {
        let response = HTTPResponse(status: 405, headers: [("Allow", "GET"), ("Vary", "Origin")], body: Array("{}".utf8))
        #expect(String(decoding: response.serialized(keepAlive: false, date: []), as: UTF8.self) == """
            HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json\r\nCache-Control: no-store\r\nContent-Length: 2\r
            Connection: close\r\nAllow: GET\r\nVary: Origin\r\n\r\n{}
            """)
        let empty = HTTPResponse(status: 204)
        #expect(String(decoding: empty.serialized(keepAlive: true, date: []), as: UTF8.self)
                == "HTTP/1.1 204 No Content\r\nCache-Control: no-store\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n")
        #expect(String(decoding: HTTPResponse(status: 299).serialized(keepAlive: true, date: []), as: UTF8.self).hasPrefix("HTTP/1.1 299 Status 299\r\n"))
        var date = HTTPDate()
        #expect(String(decoding: empty.serialized(keepAlive: true, date: date.field(at: 784_111_777)), as: UTF8.self)
                == "HTTP/1.1 204 No Content\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nCache-Control: no-store\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n")
    }

    /// RFC 9110's IMF-fixdate, and a new line only when the second changes.
    @Test func theDateFieldIsAnIMFFixdate() {
        var date = HTTPDate()
        #expect(String(decoding: date.field(at: 0), as: UTF8.self) == "Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n")
        #expect(String(decoding: date.field(at: 1_835_478_799), as: UTF8.self) == "Date: Tue, 29 Feb 2028 23:13:19 GMT\r\n")
        #expect(String(decoding: date.field(at: 1_835_478_800), as: UTF8.self) == "Date: Tue, 29 Feb 2028 23:13:20 GMT\r\n")
        #expect(HTTPDate.imfFixdate(4_102_444_799) == "Thu, 31 Dec 2099 23:59:59 GMT")
    }

    @Test func connectionsFitUnderTheOpenFileLimit() {
        let reserved = FileLimit.reserved
        #expect(FileLimit.connections(256, openFiles: 1024) == 256)
        #expect(FileLimit.connections(5000, openFiles: 1024) == 1024 - reserved)
        #expect(FileLimit.connections(256, openFiles: reserved + 10) == 10)
        #expect(FileLimit.connections(256, openFiles: 3) == 1)
        #expect(FileLimit.connections(256, openFiles: .max) == 256)
    }
}
