import RedisClient
import Testing

@Suite struct RESPReaderTests {
    private func read(_ text: String, limits: RESPReader.Limits = .init()) throws(RESPError) -> RESPValue? {
        var reader = RESPReader(limits: limits)
        reader.append(Array(text.utf8))
        return try reader.next()
    }

    @Test func readsEveryKindOfValue() throws {
        #expect(try read("+OK\r\n") == .simple("OK"))
        #expect(try read("-ERR wrong\r\n") == .error("ERR wrong"))
        #expect(try read(":-42\r\n") == .integer(-42))
        #expect(try read("$5\r\nab\r\nc\r\n") == .bulk(Array("ab\r\nc".utf8)))
        #expect(try read("$-1\r\n")?.isNull == true)
        #expect(try read("*2\r\n$1\r\na\r\n:1\r\n") == .array([.bulk([97]), .integer(1)]))
        #expect(try read("*-1\r\n")?.isNull == true)
    }

    @Test func waitsForTheWholeValueAsBytesArrive() throws {
        var reader = RESPReader()
        let bytes = Array("*2\r\n$3\r\nabc\r\n+OK\r\n:7\r\n".utf8)
        var values: [RESPValue] = []
        for byte in bytes {
            reader.append([byte])
            while let value = try reader.next() { values.append(value) }
        }
        #expect(values == [.array([.bulk(Array("abc".utf8)), .simple("OK")]), .integer(7)])
        #expect(reader.pending == 0)
    }

    @Test func refusesWhatIsNotRESPOrPastItsLimits() {
        var small = RESPReader.Limits()
        (small.maxLineBytes, small.maxBulkBytes, small.maxElements, small.maxDepth, small.maxValueBytes) = (24, 8, 2, 2, 64)
        for (text, words) in [
            ("?x\r\n", "not one of"),
            ("+OK\n", "LF without CR"),
            (":12a\r\n", "not an integer"),
            (":99999999999999999999\r\n", "not an integer"),
            (":9223372036854775808\r\n", "past 64 bits"),
            ("$-2\r\n", "length -2"),
            ("$9\r\n", "over 8"),
            ("$2\r\nabc\r\n", "not ended by CRLF"),
            ("*3\r\n", "over 2"),
            ("*1\r\n*1\r\n*1\r\n:1\r\n", "deeper than 2"),
            ("+" + String(repeating: "a", count: 40), "a line over 24"),
        ] {
            #expect(throws: RESPError.self, "\(text.debugDescription)") { _ = try read(text, limits: small) }
            do { _ = try read(text, limits: small) } catch { #expect(error.description.contains(words), "\(text.debugDescription): \(error)") }
        }
    }

    @Test func aValueThatNeverEndsIsRefusedAtTheValueLimit() throws {
        var limits = RESPReader.Limits()
        limits.maxValueBytes = 100
        var reader = RESPReader(limits: limits)
        reader.append(Array("*2\r\n".utf8))
        #expect(try reader.next() == nil)
        reader.append([UInt8](repeating: UInt8(ascii: ":"), count: 1) + Array(String(repeating: "1", count: 18).utf8) + [13, 10])
        for _ in 0..<5 { reader.append(Array("$10\r\n0123".utf8)) }
        #expect(throws: RESPError.self) { _ = try reader.next() }
    }

    @Test func commandsAreArraysOfBulkStrings() {
        #expect(String(decoding: RESPCommand.encode(["SET", "k", "é"]), as: UTF8.self) == "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\né\r\n")
    }

    @Test func addressesAreReadAndShownWithoutThePassword() throws {
        let address = try RedisAddress(parsing: "redis://:s3cret@127.0.0.1:6380/2")
        #expect((address.host, address.port, address.database) == ("127.0.0.1", 6380, 2))
        #expect(address.description == "redis://127.0.0.1:6380/2")
        for bad in ["http://x", "redis://", "redis://h:0", "redis://h/99", "redis://user@h"] {
            #expect(throws: RedisError.self, "\(bad)") { try RedisAddress(parsing: bad) }
        }
        do { _ = try RedisAddress(parsing: "redis://:s3cret@h:x") } catch { #expect(!error.description.contains("s3cret")) }
    }
}
