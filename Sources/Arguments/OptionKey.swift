/// An option declared once — name, help, value type, range or choices, default, environment variable — and read by
/// that declaration: `invocation[JoinOptions.fps]` is an `Int` the parser has already checked to be in its range.
public struct OptionKey<Value: Sendable>: Sendable {
    /// The table row: usage, completion and the man page read it.
    public let option: Option
    /// The value of a text the option's check took, or of no text (not given, no default).
    let value: @Sendable (String?) -> Value
}

extension OptionKey {
    /// The same option, kept by a record of the command line as `kept` says.
    public func kept(_ kept: Option.Kept) -> OptionKey {
        var option = option
        option.kept = kept
        return OptionKey(option: option, value: value)
    }
}

extension OptionKey where Value == Bool {
    /// A flag: true when given.
    public static func flag(_ name: String, help: String) -> OptionKey {
        OptionKey(option: .flag(name, help: help)) { $0 != nil }
    }
}

extension OptionKey where Value == String {
    /// Any text, with a default.
    public static func text(_ name: String, _ placeholder: String, help: String, environment: [String] = [],
                            default defaultValue: String) -> OptionKey {
        OptionKey(option: .value(name, placeholder, help: help, environment: environment, default: defaultValue)) { $0 ?? defaultValue }
    }
}

extension OptionKey where Value == String {
    /// Text that must be given (on the command line or through `environment`).
    public static func required(_ name: String, _ placeholder: String, help: String, environment: [String] = []) -> OptionKey {
        OptionKey(option: .value(name, placeholder, help: help, environment: environment, required: true)) { $0 ?? "" }
    }
}

extension OptionKey where Value == String? {
    /// Any text; nil when not given.
    public static func text(_ name: String, _ placeholder: String, help: String, environment: [String] = [],
                            otherwise note: String? = nil) -> OptionKey {
        OptionKey(option: .value(name, placeholder, help: help, environment: environment, otherwise: note)) { $0 }
    }
}

extension OptionKey where Value: FixedWidthInteger {
    /// An integer in `range`, which the help shows ("help, 1...60") and the parser enforces.
    public static func integer(_ name: String, _ placeholder: String = "N", help: String, in range: ClosedRange<Value>,
                               environment: [String] = [], default defaultValue: Value) -> OptionKey {
        precondition(range.contains(defaultValue), "--\(name)'s default is outside its range")
        return OptionKey(option: .integer(name, placeholder, help: help, in: range, environment: environment,
                                          default: "\(defaultValue)", otherwise: nil)) { $0.flatMap { Value($0) } ?? defaultValue }
    }
}

extension OptionKey {
    /// An integer in `range`; nil when not given (`note` says what happens then).
    public static func integer<T: FixedWidthInteger & Sendable>(
        _ name: String, _ placeholder: String = "N", help: String, in range: ClosedRange<T>, environment: [String] = [],
        otherwise note: String? = nil
    ) -> OptionKey<T?> where Value == T? {
        OptionKey<T?>(option: .integer(name, placeholder, help: help, in: range, environment: environment, default: nil,
                                       otherwise: note)) { $0.flatMap { T($0) } }
    }
}

extension OptionKey {
    /// One of `choices`, each a word and its value, in the order usage and errors list them; `defaultWord` must be one.
    public static func choice(_ name: String, _ placeholder: String, help: String, _ choices: [(word: String, value: Value)],
                              environment: [String] = [], default defaultWord: String) -> OptionKey where Value: Sendable {
        let table = choices.map { ($0.word, $0.value) }
        guard let fallback = table.first(where: { $0.0 == defaultWord })?.1 else { preconditionFailure("--\(name)'s default is not a choice") }
        return OptionKey(option: .choice(name, placeholder, help: help, words: table.map(\.0), environment: environment,
                                         default: defaultWord, otherwise: nil)) { text in
            table.first { $0.0 == text }?.1 ?? fallback
        }
    }
}

extension OptionKey {
    /// One of `choices`; nil when not given (`note` says what happens then).
    public static func choice<T: Sendable>(_ name: String, _ placeholder: String, help: String, _ choices: [(word: String, value: T)],
                                           environment: [String] = [], otherwise note: String? = nil) -> OptionKey<T?>
    where Value == T? {
        let table = choices.map { ($0.word, $0.value) }
        return OptionKey<T?>(option: .choice(name, placeholder, help: help, words: table.map(\.0), environment: environment,
                                             default: nil, otherwise: note)) { text in
            table.first { $0.0 == text }?.1
        }
    }
}

extension OptionKey {
    /// A value `parse` reads from the text (the parser refuses a text it reads as nil, saying the option `must` …);
    /// `defaultText` is read when the option is not given.
    public static func parsed(_ name: String, _ placeholder: String, help: String, default defaultText: String, must: String,
                              _ parse: @escaping @Sendable (String) -> Value?) -> OptionKey {
        guard let fallback = parse(defaultText) else { preconditionFailure("--\(name)'s default does not read") }
        return OptionKey(option: .checked(name, placeholder, help: help, environment: [], default: defaultText, otherwise: nil) {
            parse($0) == nil ? "must be \(must)" : nil
        }) { text in text.flatMap(parse) ?? fallback }
    }
}

extension OptionKey {
    /// A value `parse` reads from the text (the parser refuses a text it reads as nil, saying the option `must` …);
    /// nil when not given (`note` says what happens then).
    public static func parsed<T: Sendable>(_ name: String, _ placeholder: String, help: String, must: String, otherwise note: String? = nil,
                                           _ parse: @escaping @Sendable (String) -> T?) -> OptionKey<T?> where Value == T? {
        OptionKey<T?>(option: .checked(name, placeholder, help: help, environment: [], default: nil, otherwise: note) {
            parse($0) == nil ? "must be \(must)" : nil
        }) { text in text.flatMap(parse) }
    }
}

extension OptionKey where Value: CaseIterable & RawRepresentable<String> {
    /// One of an enum's cases, named by their raw values.
    public static func choice(_ name: String, _ placeholder: String, help: String, environment: [String] = [],
                              default defaultValue: Value) -> OptionKey {
        choice(name, placeholder, help: help, Value.allCases.map { ($0.rawValue, $0) }, environment: environment,
               default: defaultValue.rawValue)
    }
}

extension Option {
    /// The row of an integer option: its range appended to the help and checked at parse.
    static func integer<T: FixedWidthInteger & Sendable>(_ name: String, _ placeholder: String, help: String, in range: ClosedRange<T>,
                                              environment: [String], default defaultValue: String?, otherwise note: String?) -> Option {
        .checked(name, placeholder, help: "\(help), \(range.lowerBound)...\(range.upperBound)", environment: environment,
                 default: defaultValue, otherwise: note) { text in
            T(text).map { range.contains($0) } == true ? nil : "must be an integer from \(range.lowerBound) to \(range.upperBound)"
        }
    }

    /// The row of a choice: its words appended to the help ("help: a, b or c") and checked at parse.
    static func choice(_ name: String, _ placeholder: String, help: String, words: [String], environment: [String],
                       default defaultValue: String?, otherwise note: String?) -> Option {
        let listed = words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words[words.count - 1]
        return .checked(name, placeholder, help: help.isEmpty ? listed : "\(help): \(listed)", environment: environment,
                        default: defaultValue, otherwise: note, choices: words) { text in
            words.contains(text) ? nil : "must be \(listed)"
        }
    }
}

extension Invocation {
    /// The value of `key`, checked by the parser; traps when the command reached does not declare it (a table mistake
    /// every test that runs the command finds).
    public subscript<Value>(key: OptionKey<Value>) -> Value {
        precondition(command.option(named: key.option.name) != nil,
                     "\(path.joined(separator: " ")) reads --\(key.option.name) but does not declare it")
        return key.value(string(key.option.name))
    }

    /// True when `key` was given, on the command line or through its environment variable (not by its default).
    public func has<Value>(_ key: OptionKey<Value>) -> Bool { has(key.option.name) }

    /// True when `key`'s value came from its environment variable, not the command line.
    public func isFromEnvironment<Value>(_ key: OptionKey<Value>) -> Bool { isFromEnvironment(key.option.name) }

    /// How an error names `key`'s option: `--port`, or `SERVER_PORT (for --port)`.
    public func described<Value>(_ key: OptionKey<Value>) -> String { described(key.option.name) }
}
