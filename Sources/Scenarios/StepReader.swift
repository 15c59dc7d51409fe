import PrintableText

/// Reads one line of a scenario into its action.
struct StepReader {
    let vocabulary: ScenarioVocabulary
    /// The line without its comment and the white space at its ends.
    private(set) var source = ""
    /// Whose step it is: its `A:` or `B:` prefix, A's without one.
    private(set) var participant = ScenarioParticipant.a

    struct Refusal: Error {
        let words: String
        init(_ words: String) { self.words = words }
    }

    static let actions = ["join", "leave", "rejoin", "renew", "method", "auto-renew", "role", "account", "expire", "cut", "restore",
                          "stop", "start", "misconfigure", "paste", "users", "wait", "expect"]

    init(vocabulary: ScenarioVocabulary) { self.vocabulary = vocabulary }

    /// The line's action; nil for a blank line or a comment.
    mutating func read(_ line: String) throws(Refusal) -> ScenarioAction? {
        source = Self.withoutComment(line)
        var words = try Self.words(source)
        guard !words.isEmpty else { return nil }
        if let prefix = words.first, prefix.utf8.last == UInt8(ascii: ":") {
            participant = try Self.participant(prefix)
            words.removeFirst()
            guard let verb = words.first else { throw Refusal("\(prefix) what? a step follows it, such as \(prefix) join") }
            if ["wait", "stop", "start", "misconfigure"].contains(verb) {
                throw Refusal("\(verb) is the scenario's, not one person's: write it without \(prefix)")
            }
        }
        let verb = words.removeFirst()
        switch verb {
        case "join", "leave", "rejoin", "renew", "expire":
            try none(after: verb, words)
            return switch verb {
            case "join": .join
            case "leave": .leave
            case "rejoin": .rejoin
            case "renew": .renew
            default: .expire
            }
        case "method":
            return .method(try one(of: ScenarioRenewMethod.self, after: verb, words))
        case "role":
            return .role(try one(of: ScenarioRole.self, after: verb, words))
        case "auto-renew":
            let word = try single(after: verb, words, naming: "on or off")
            guard word == "on" || word == "off" else { throw unknown(word, in: ["on", "off"], what: "auto-renew takes") }
            return .autoRenew(word == "on")
        case "cut", "restore":
            let word = try single(after: verb, words, naming: "network")
            guard word == "network" else { throw unknown(word, in: ["network"], what: "\(verb) takes") }
            return .network(up: verb == "restore")
        case "stop", "start":
            let word = try single(after: verb, words, naming: "server")
            guard word == "server" else { throw unknown(word, in: ["server"], what: "\(verb) takes") }
            return .server(running: verb == "start")
        case "misconfigure":
            let word = try single(after: verb, words, naming: "a mistake (\((["none"] + vocabulary.mistakes).joined(separator: ", ")))")
            if word == "none" { return .misconfigure(nil) }
            guard vocabulary.mistakes.contains(word) else { throw unknown(word, in: ["none"] + vocabulary.mistakes, what: "misconfigure takes") }
            return .misconfigure(word)
        case "paste":
            return .paste(try single(after: verb, words, naming: "the token"))
        case "account":
            return .account(try single(after: verb, words, naming: "a user account"))
        case "users":
            let word = try single(after: verb, words, naming: "a number, 0...\(vocabulary.userLimit)")
            guard let count = Int(word), (0...vocabulary.userLimit).contains(count) else {
                throw Refusal("users takes a number of remote users, 0...\(vocabulary.userLimit), not \(word.escapedForPrinting)")
            }
            return .users(count)
        case "wait":
            return .wait(try Self.duration(try single(after: verb, words, naming: "a duration such as 30s")))
        case "expect":
            return try expect(words)
        default:
            throw unknown(verb, in: Self.actions, what: "a step starts with")
        }
    }

    private func expect(_ words: [String]) throws(Refusal) -> ScenarioAction {
        guard let first = words.first else {
            throw Refusal("expect what? expect EVENT [field=value ...] within DURATION, expect no EVENT ... for DURATION, "
                          + "expect state STATE or expect fetches N")
        }
        switch first {
        case "state":
            let state = try single(after: "expect state", Array(words.dropFirst()), naming: "a state (\(vocabulary.states.joined(separator: ", ")))")
            guard vocabulary.states.contains(state) else { throw unknown(state, in: vocabulary.states, what: "a connection state is one of") }
            return .expectState(state)
        case "fetches":
            let word = try single(after: "expect fetches", Array(words.dropFirst()), naming: "a number")
            guard let count = Int(word), count >= 0, count <= 1_000_000 else {
                throw Refusal("expect fetches takes a number of requests, 0...1000000, not \(word.escapedForPrinting)")
            }
            return .expectFetches(count)
        case "no":
            let (match, duration) = try match(Array(words.dropFirst()), ending: "for")
            return .expectNo(match, for: duration)
        default:
            let (match, duration) = try match(words, ending: "within")
            return .expect(match, within: duration)
        }
    }

    /// `EVENT [field=value ...] KEYWORD DURATION`.
    private func match(_ words: [String], ending keyword: String) throws(Refusal) -> (EventMatch, Duration) {
        guard words.count >= 3, words[words.count - 2] == keyword else {
            let shape = keyword == "for" ? "expect no EVENT [field=value ...] for DURATION" : "expect EVENT [field=value ...] within DURATION"
            throw Refusal("a check reads \(shape); this one does not end with \(keyword) DURATION")
        }
        let event = vocabulary.aliases[words[0]] ?? words[0]
        guard let known = vocabulary.events[event] else {
            throw unknown(event, in: vocabulary.events.keys.sorted(), what: "events are named as --json names them, Docs/events.md", listed: false)
        }
        var fields: [EventMatch.Field] = []
        for word in words[1..<(words.count - 2)] {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw Refusal("\(word.escapedForPrinting) is not field=value")
            }
            let name = String(word[..<equals])
            guard known.contains(name) else {
                if known.isEmpty { throw Refusal("\(event) has no fields") }
                throw unknown(name, in: known, what: "\(event)'s fields are")
            }
            fields.append(EventMatch.Field(name: name, value: try Self.value(String(word[word.index(after: equals)...]))))
        }
        return (EventMatch(event: event, fields: fields), try Self.duration(words[words.count - 1]))
    }

    /// `A:` or `B:`; anything else ending with a colon is refused (`b:` with the one meant).
    private static func participant(_ prefix: String) throws(Refusal) -> ScenarioParticipant {
        if let participant = ScenarioParticipant(rawValue: String(prefix.dropLast())) { return participant }
        let meant = ScenarioParticipant(rawValue: String(prefix.dropLast()).uppercased()).map { "did you mean \($0.rawValue):? " } ?? ""
        throw Refusal("\(prefix.escapedForPrinting)? \(meant)(a step is A's without a prefix or with A:, B's with B:)")
    }

    private func none(after verb: String, _ words: [String]) throws(Refusal) {
        guard words.isEmpty else { throw Refusal("\(verb) takes nothing after it, not \(words[0].escapedForPrinting)") }
    }

    private func single(after verb: String, _ words: [String], naming what: String) throws(Refusal) -> String {
        guard let word = words.first else { throw Refusal("\(verb) takes \(what)") }
        guard words.count == 1 else { throw Refusal("\(verb) takes one word, \(what); \(words[1].escapedForPrinting) is one too many") }
        return word
    }

    private func one<T: RawRepresentable & CaseIterable>(of: T.Type, after verb: String, _ words: [String]) throws(Refusal) -> T
        where T.RawValue == String {
        let names = T.allCases.map(\.rawValue)
        let word = try single(after: verb, words, naming: names.joined(separator: " or "))
        guard let value = T(rawValue: word) else { throw unknown(word, in: names, what: "\(verb) takes") }
        return value
    }

    /// `what` and the words it may be, with the nearest one suggested when the word looks misspelt.
    private func unknown(_ word: String, in words: [String], what: String, listed: Bool = true) -> Refusal {
        let shown = word.escapedForPrinting
        let list = listed ? " \(words.joined(separator: ", "))" : ""
        if let near = Self.nearest(to: word, in: words) { return Refusal("\(shown)? did you mean \(near)? (\(what)\(list))") }
        return Refusal("\(shown) is not known: \(what) \(words.joined(separator: ", "))")
    }

    /// The word at most a third of its letters (and two) from `word`, if one is nearest.
    static func nearest(to word: String, in words: [String]) -> String? {
        let typed = Array(word.unicodeScalars.prefix(64))
        let limit = min(2, max(1, typed.count / 3))
        let scored = words.map { ($0, distance(typed, Array($0.unicodeScalars))) }.filter { $0.1 <= limit }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// Levenshtein distance, a transposition counting as one.
    private static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { current[j] = min(current[j], before[j - 2] + 1) }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }

    /// `250ms`, `30s`, `10m`, `2h` or `1d`, up to `Scenario.longest`.
    static func duration(_ word: String) throws(Refusal) -> Duration {
        let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000)]
        let bytes = Array(word.utf8)
        let digits = bytes.prefix { (0x30...0x39).contains($0) }
        let unit = String(decoding: bytes[digits.count...], as: UTF8.self)
        guard !digits.isEmpty, digits.count <= 12, let scale = units.first(where: { $0.0 == unit })?.1,
              let number = Int64(String(decoding: digits, as: UTF8.self)) else {
            throw Refusal("\(word.escapedForPrinting) is not a duration: a whole number and ms, s, m, h or d, such as 250ms, 30s, 10m, 2h, 1d")
        }
        let (millis, overflow) = number.multipliedReportingOverflow(by: scale)
        guard !overflow, millis <= Scenario.longestMilliseconds else {
            throw Refusal("\(word.escapedForPrinting) is longer than a scenario step may last, 7d")
        }
        return .milliseconds(millis)
    }

    /// A field's value: bare, or a JSON-like string in quotes (`text="a b"`, `\"` and `\\` within).
    private static func value(_ text: String) throws(Refusal) -> String {
        guard text.hasPrefix("\"") else { return text }
        var value = ""
        var escaped = false
        var closed = false
        for character in text.dropFirst() {
            guard !closed else { throw Refusal("\(text.escapedForPrinting) has more after its closing quote") }
            if escaped {
                value.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                closed = true
            } else {
                value.append(character)
            }
        }
        guard closed else { throw Refusal("\(text.escapedForPrinting) has no closing quote") }
        return value
    }

    /// The line without a `#` comment (at its start or after white space, outside quotes) and its ends' white space.
    static func withoutComment(_ line: String) -> String {
        var kept = ""
        var quoted = false, escaped = false, afterSpace = true
        for character in line {
            if !quoted, afterSpace, character == "#" { break }
            if quoted {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { quoted = false }
            } else if character == "\"" {
                quoted = true
            }
            afterSpace = character == " " || character == "\t"
            kept.append(character)
        }
        return String(kept.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    /// Words apart by spaces or tabs; a quoted part (`"a b"`) stays in its word.
    static func words(_ line: String) throws(Refusal) -> [String] {
        var words: [String] = []
        var word = ""
        var quoted = false, escaped = false
        for character in line {
            if character != "\t", character.unicodeScalars.contains(where: \.isUnsafeToPrint) {
                throw Refusal("the line holds a control or format character, \(String(character).escapedForPrinting); write it out")
            }
            if quoted {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { quoted = false }
                word.append(character)
            } else if character == " " || character == "\t" {
                if !word.isEmpty { words.append(word) }
                word = ""
            } else {
                if character == "\"" { quoted = true }
                word.append(character)
            }
        }
        guard !quoted else { throw Refusal("a quote opened on this line is never closed") }
        if !word.isEmpty { words.append(word) }
        return words
    }
}
