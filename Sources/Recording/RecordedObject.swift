import JSON

/// One recorded line's JSON object, read member by member; each missing or mistyped member is a `LineProblem`.
struct RecordedObject {
    let members: [String: JSONValue]
    /// What the object is, for errors: `header`, `didJoinChannel`.
    let what: String

    /// The JSON value a line holds, by the JSON module's strict reader.
    static func parse(_ bytes: some Collection<UInt8>) throws(LineProblem) -> JSONValue {
        do { return try JSONValue.decode(bytes) } catch { throw LineProblem("not JSON: \(error)") }
    }

    init(_ value: JSONValue, what: String) throws(LineProblem) {
        guard let members = value.object else { throw LineProblem("\(what) must be a JSON object, not \(value.kind)") }
        self.init(members: members, what: what)
    }

    init(members: [String: JSONValue], what: String) {
        self.members = members
        self.what = what
    }

    func value(_ key: String) throws(LineProblem) -> JSONValue {
        guard let value = members[key] else { throw LineProblem("\(what) has no \"\(key)\"") }
        return value
    }

    func text(_ key: String) throws(LineProblem) -> String {
        let value = try value(key)
        guard let text = value.string else { throw mistyped(key, value, "a string") }
        return text
    }

    func flag(_ key: String) throws(LineProblem) -> Bool {
        let value = try value(key)
        guard case .bool(let flag) = value else { throw mistyped(key, value, "true or false") }
        return flag
    }

    func integer<T: FixedWidthInteger>(_ key: String, as type: T.Type = T.self) throws(LineProblem) -> T {
        let value = try value(key)
        let number: T? = switch value {
        case .integer(let whole): T(exactly: whole)
        case .number(let text): T(text)  // past Int64 (a seed)
        default: nil
        }
        guard let number else { throw mistyped(key, value, "a whole number from \(T.min) to \(T.max)") }
        return number
    }

    /// A unix time as tokens hold them (32 bits unsigned), so that the screen's arithmetic on it cannot overflow.
    func unixTime(_ key: String) throws(LineProblem) -> Int64 { Int64(try integer(key, as: UInt32.self)) }

    /// Seconds as the recorder writes them, `12.345`: whole milliseconds.
    func seconds(_ key: String) throws(LineProblem) -> Duration {
        let value = try value(key)
        guard case .number(let text) = value, let duration = Self.duration(text) else {
            throw mistyped(key, value, "seconds with three decimals")
        }
        return duration
    }

    /// Seconds or nothing: a `null` member reads as nil.
    func optionalSeconds(_ key: String) throws(LineProblem) -> Duration? {
        try value(key) == .null ? nil : try seconds(key)
    }

    /// One of `E`'s cases, by its printed word.
    func choice<E: CaseIterable>(_ key: String, _ word: (E) -> String) throws(LineProblem) -> E {
        let text = try text(key)
        guard let found = E.allCases.first(where: { word($0) == text }) else {
            throw LineProblem("\(what)'s \"\(key)\" is not one of \(E.allCases.map(word).joined(separator: ", "))")
        }
        return found
    }

    func object(_ key: String) throws(LineProblem) -> RecordedObject {
        try RecordedObject(try value(key), what: "\(what)'s \"\(key)\"")
    }

    func array(_ key: String) throws(LineProblem) -> [JSONValue] {
        let value = try value(key)
        guard case .array(let items) = value else { throw mistyped(key, value, "an array") }
        return items
    }

    private func mistyped(_ key: String, _ value: JSONValue, _ wanted: String) -> LineProblem {
        LineProblem("\(what)'s \"\(key)\" must be \(wanted), not \(value.kind)")
    }

    /// A text from the file as an error quotes it: at most 40 characters (it is escaped where it is printed).
    static func quoted(_ text: String) -> String {
        "\"" + (text.count > 40 ? text.prefix(40) + "…" : text) + "\""
    }

    /// `12.345` as a duration: digits, a point and three digits, at most a million years of seconds.
    static func duration(_ text: String) -> Duration? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 3, (1...13).contains(parts[0].count),
              parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
              let whole = Int64(parts[0]), let millis = Int64(parts[1]) else { return nil }
        return .seconds(whole) + .milliseconds(millis)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
