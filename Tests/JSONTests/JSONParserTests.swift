import Foundation
import JSON
import SeededRandom
import Testing

@Suite struct JSONParserTests {
    static func decode(_ text: String) -> Result<JSONValue, JSONError> {
        Result { () throws(JSONError) in try JSONValue.decode(Array(text.utf8)) }
    }

    static func problem(_ text: String) -> String? {
        if case .failure(let error) = decode(text) { error.problem } else { nil }
    }

    @Test func readsEveryKindOfValue() throws {
        let value = try JSONValue.decode(Array(#" {"a": [1, -2, 3.5, "x\u00e9\n", true, false, null, {}], "b": {"c": []}} "#.utf8))
        #expect(value == .object([
            "a": .array([.integer(1), .integer(-2), .number("3.5"), .string("xé\n"), .bool(true), .bool(false), .null, .object([:])]),
            "b": .object(["c": .array([])]),
        ]))
    }

    @Test(arguments: [
        ("9223372036854775807", JSONValue.integer(.max)),
        ("-9223372036854775808", .integer(.min)),
        ("9223372036854775808", .number("9223372036854775808")),
        ("-9223372036854775809", .number("-9223372036854775809")),
        ("99999999999999999999999999999", .number("99999999999999999999999999999")),
        ("0", .integer(0)),
        ("-0", .number("-0")),
        ("0.0", .number("0.0")),
        ("1e-400", .number("1e-400")),
        ("4294967295.0000001", .number("4294967295.0000001")),
        ("1E+2", .number("1E+2")),
    ])
    func numbersAreIntegersOnlyWhenWrittenAsOneThatFits(text: String, expected: JSONValue) throws {
        #expect(try JSONValue.decode(Array(text.utf8)) == expected)
        #expect(try JSONValue.decode(Array(#"{"uid": \#(text)}"#.utf8)) == .object(["uid": expected]))
    }

    @Test(arguments: [
        ("\u{FEFF}{}", "a byte-order mark (send UTF-8 without one)"),
        (#"{"a": 1,}"#, "a trailing comma"),
        ("[1,]", "a trailing comma"),
        (#"{"a": 1, "a": 2}"#, "a key given twice"),
        ("01", "a number with a leading zero"),
        ("+1", "'+' where a value should be"),
        ("-", "the text ends early"),
        ("1.", "the text ends early"),
        ("1.e3", "a '.' without digits after it"),
        ("1e", "the text ends early"),
        (".5", "'.' where a value should be"),
        ("NaN", "'N' where a value should be"),
        ("tru", "a word that is not true, false or null"),
        (#""a"#, "a string without its closing quote"),
        ("\"a\tb\"", "a control character in a string (write it as an escape)"),
        (#""\x""#, "an escape that JSON does not have"),
        (#""\u12""#, "\\u without four hex digits"),
        (#""\ud800""#, "a high surrogate without its low half"),
        (#""\ud800\u0041""#, "a high surrogate without its low half"),
        (#""\udc00""#, "a low surrogate without its high half"),
        ("{} {}", "more after the value"),
        ("{'a': 1}", "no key in quotes"),
        (#"{"a" 1}"#, "no ':' after a key"),
        (#"{"a": 1 "b": 2}"#, "no ',' or '}' after a member"),
        ("", "no JSON at all"),
        ("  \n", "only whitespace"),
        ("\u{0B}{}", "byte 0xB where a value should be"),
    ])
    func refusesWhatRFC8259Refuses(text: String, problem: String) {
        #expect(Self.problem(text) == problem)
    }

    @Test func refusesInvalidUTF8AndEncodedSurrogates() {
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0x5C, 0x6E, 0xE9, 0x22]] {
            #expect(throws: JSONError.self) { try JSONValue.decode(bytes) }
        }
        #expect(JSONValue.parse(Array(#""\ud83d\ude00 é""#.utf8)) == .string("😀 é"))
    }

    @Test func nestingIsBounded() {
        let deepest = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(JSONValue.parse(Array(deepest.utf8)) != nil)
        let tooDeep = String(repeating: "[", count: 100_000)
        #expect(Self.problem(tooDeep) == "nesting deeper than 64 levels")
    }

    @Test func errorsSayWhere() throws {
        let error = try #require(Self.decode(#"{"uid": 1,}"#).failure)
        #expect(error.offset == 10)
        #expect(error.description == "a trailing comma at byte 10")
    }

    /// Whatever this parser accepts, Foundation's reads as the same value: the two never disagree on meaning. (Numbers
    /// beyond a Double's range are kept as text here; Foundation refuses them.)
    @Test func acceptsOnlyWhatFoundationReadsTheSame() {
        var random = SplitMix64(seed: 9)
        let pieces = ["{", "}", "[", "]", ",", ":", " ", "\n", #""uid""#, #""a\"b""#, #""\u00e9""#, #""é""#, "1", "-1", "0", "-0",
                      "1.5", "2e3", "9223372036854775808", "true", "null", "false", #""""#, "\"\u{7f}\"", "x"]
        var accepted = 0
        for _ in 0..<40_000 {
            let text = (0..<(1 + random.below(8))).map { _ in pieces[random.below(pieces.count)] }.joined()
            guard let ours = JSONValue.parse(Array(text.utf8)) else { continue }
            accepted += 1
            guard let theirs = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else {
                #expect(Self.beyondDouble(ours), "\(text.debugDescription)")
                continue
            }
            #expect(Self.same(ours, theirs), "\(text.debugDescription)")
        }
        #expect(accepted > 2_000)
    }

    static func same(_ ours: JSONValue, _ theirs: Any) -> Bool {
        switch ours {
        case .null: return theirs is NSNull
        case .bool(let value): return (theirs as? Bool) == value
        case .integer(let value): return (theirs as? NSNumber)?.int64Value == value && (theirs as? NSNumber)?.doubleValue == Double(value)
        case .number(let text):
            guard let theirs = (theirs as? NSNumber)?.doubleValue, let ours = Double(text) else { return false }
            return ours == theirs || abs(ours - theirs) <= abs(ours) * 1e-12
        case .string(let text): return (theirs as? String) == text
        case .array(let elements):
            guard let items = theirs as? [Any], items.count == elements.count else { return false }
            return zip(elements, items).allSatisfy { same($0, $1) }
        case .object(let members):
            guard let items = theirs as? [String: Any], items.count == members.count else { return false }
            return members.allSatisfy { key, value in items[key].map { same(value, $0) } ?? false }
        }
    }

    static func beyondDouble(_ value: JSONValue) -> Bool {
        switch value {
        case .number(let text): Double(text).map { !$0.isFinite } ?? true
        case .array(let elements): elements.contains(where: beyondDouble)
        case .object(let members): members.values.contains(where: beyondDouble)
        default: false
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}

/// `JSONFlatObject` reads what a token request's body is without the full parser: whenever it reads anything, the
/// full parser reads the same members, and the bench's body and its like are read.
@Suite struct JSONFlatObjectTests {
    static func members(_ text: String) -> [String: JSONValue]? {
        Array(text.utf8).withUnsafeBufferPointer(JSONFlatObject.read).map { object in
            Dictionary(object.members.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        }
    }

    @Test func readsTheTokenRequestsBody() {
        #expect(Self.members(#"{"uid": 42, "channelName": "bench", "role": 1}"#)
                == ["uid": .integer(42), "channelName": .string("bench"), "role": .integer(1)])
        #expect(Self.members(" {}\n") == [:])
        #expect(Self.members(#"{"uid":"007","x":0}"#) == ["uid": .string("007"), "x": .integer(0)])
    }

    @Test(arguments: [#"{"a": 1, "a": 2}"#, #"{"a": -1}"#, #"{"a": 01}"#, #"{"a": 1.5}"#, #"{"a": 1e3}"#, #"{"a": "\n"}"#,
                      #"{"a": "é"}"#, #"{"a": true}"#, #"{"a": {}}"#, #"{"a": 1,}"#, #"{"a": 1} x"#, "[1]", "",
                      #"{"a": 1234567890123456789}"#, #"{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}"#])
    func leavesAnythingElseToTheFullParser(_ text: String) {
        #expect(Self.members(text) == nil)
    }

    @Test func whatItReadsIsWhatTheFullParserReads() {
        var random = SplitMix64(seed: 21)
        let pieces = ["{", "}", "[", "]", ",", ":", " ", "\t", "\r\n", #""uid""#, #""role""#, #""channelName""#, #""bench""#,
                      #""a\"b""#, #""é""#, "\"\u{7f}\"", "\"\u{1f}\"", #""""#, "42", "1", "0", "00", "-1", "-0", "1.5", "2e3", "1E2",
                      "99999999999999999999", "123456789012345678", "1234567890123456789", "true", "null", "x"]
        var read = 0
        for round in 0..<60_000 {
            let text: String
            if round % 2 == 0 {
                text = (0..<(1 + random.below(10))).map { _ in pieces[random.below(pieces.count)] }.joined()
            } else {
                // The bench's body with a byte changed, dropped or doubled.
                var bytes = Array(#"{"uid": 42, "channelName": "bench", "role": 1}"#.utf8)
                let at = random.below(bytes.count)
                switch random.below(3) {
                case 0: bytes[at] = random.byte()
                case 1: bytes.remove(at: at)
                default: bytes.insert(bytes[at], at: at)
                }
                text = String(decoding: bytes, as: UTF8.self)
            }
            guard let flat = Self.members(text) else { continue }
            read += 1
            #expect(JSONValue.parse(Array(text.utf8)) == .object(flat), "\(text.debugDescription)")
        }
        #expect(read > 2_000)
    }
}
