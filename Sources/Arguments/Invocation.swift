/// A parsed command line: which command, and the values given for it (from arguments or environment), or its
/// options' defaults.
public struct Invocation: Sendable {
    /// Command names from the top, e.g. ["tokencall", "token", "build"].
    public let path: [String]
    let values: [String: String]
    /// The defaults of the options not given.
    var defaults: [String: String] = [:]
    /// For options whose value came from the environment, the variable it came from.
    var environmentSources: [String: String] = [:]
    public let positionals: [String]
    /// The command reached.
    let command: Command

    /// Runs the command reached; one without a `run` of its own is a usage error.
    @MainActor
    public func run() async throws(UsageError) -> Int32 {
        guard let run = command.run else { throw error("nothing to run; see its usage") }
        return try await run(self)
    }

    /// The options given (on the command line or through the environment), by name; a flag's value is empty.
    public var given: [String: String] { values }

    /// True when the flag or option was given (on the command line or through the environment).
    public func has(_ name: String) -> Bool { values[name] != nil }

    /// True when the option's value came from its environment variable, not the command line.
    public func isFromEnvironment(_ name: String) -> Bool { environmentSources[name] != nil }

    /// The option's value, or its default; nil when it has neither.
    public func string(_ name: String) -> String? { values[name] ?? defaults[name] }

    /// The value of an option that is always set: it has a default, or is required. (Disfavoured: where an optional
    /// fits, the optional form is read.)
    @_disfavoredOverload
    public func string(_ name: String) -> String { defaulted(name, string(name)) }

    /// How an error names the option: `--port`, or `SERVER_PORT (for --port)` when the value came from there.
    public func described(_ name: String) -> String {
        environmentSources[name].map { "\($0) (for --\(name))" } ?? "--\(name)"
    }

    /// A usage error for this command.
    public func error(_ message: String) -> UsageError {
        UsageError(message, path: path)
    }

    /// The option (or its default) as an integer in `range`; nil when it has neither.
    public func integer<T: FixedWidthInteger & Sendable>(_ name: String, in range: ClosedRange<T>) throws(UsageError) -> T? {
        guard let text = string(name) else { return nil }
        guard let value = T(text), range.contains(value) else {
            throw error("\(described(name)) must be an integer from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return value
    }

    /// An option that is always set, as an integer in `range`.
    @_disfavoredOverload
    public func integer<T: FixedWidthInteger & Sendable>(_ name: String, in range: ClosedRange<T>) throws(UsageError) -> T {
        defaulted(name, try integer(name, in: range) as T?)
    }

    /// The option (or its default) as one of `choices`, each named by `word`; nil when it has neither. (Choices in an
    /// order, so errors list the words as written: `KeyValuePairs` or an array, not a dictionary.)
    public func choice<C: BidirectionalCollection>(_ name: String, _ choices: C, word: (C.Element) -> String) throws(UsageError) -> C.Element? {
        guard let text = string(name) else { return nil }
        guard let match = choices.first(where: { word($0) == text }) else {
            let words = choices.map(word)
            throw error("\(described(name)) must be \(words.dropLast().joined(separator: ", ")) or \(words.last ?? ""), not \"\(text)\"")
        }
        return match
    }

    /// An option that is always set, as one of `choices`.
    @_disfavoredOverload
    public func choice<C: BidirectionalCollection>(_ name: String, _ choices: C, word: (C.Element) -> String) throws(UsageError) -> C.Element {
        defaulted(name, try choice(name, choices, word: word) as C.Element?)
    }

    /// An option that is always set, as a case of an enum named by its raw values.
    public func choice<T: CaseIterable & RawRepresentable<String>>(_ name: String, as type: T.Type = T.self) throws(UsageError) -> T {
        try choice(name, Array(T.allCases), word: \.rawValue)
    }

    private func defaulted<T>(_ name: String, _ value: T?) -> T {
        guard let value else { preconditionFailure("--\(name) is read as always set, but has no default and is not required") }
        return value
    }
}
