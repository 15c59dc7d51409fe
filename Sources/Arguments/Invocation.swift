/// A parsed command line: which command, and the values given for it (from arguments or environment).
public struct Invocation: Sendable {
    /// Command names from the top, e.g. ["tokencall", "token", "build"].
    public let path: [String]
    let values: [String: String]
    /// For options whose value came from the environment, the variable it came from.
    var environmentSources: [String: String] = [:]
    public let positionals: [String]
    /// The usage of the command reached, for errors found after parsing.
    public let usage: String

    /// True when the flag or option was given.
    public func has(_ name: String) -> Bool { values[name] != nil }

    /// The option's value, or nil when not given.
    public func string(_ name: String) -> String? { values[name] }

    /// How an error names the option: `--port`, or `SERVER_PORT (for --port)` when the value came from there.
    public func described(_ name: String) -> String {
        environmentSources[name].map { "\($0) (for --\(name))" } ?? "--\(name)"
    }

    /// A usage error for this command.
    public func error(_ message: String) -> UsageError {
        UsageError(message: "\(path.joined(separator: " ")): \(message)", usage: usage)
    }

    /// The option as an integer in `range`, or nil when not given.
    public func integer<T: FixedWidthInteger & Sendable>(_ name: String, in range: ClosedRange<T>) throws(UsageError) -> T? {
        guard let text = values[name] else { return nil }
        guard let value = T(text), range.contains(value) else {
            throw error("\(described(name)) must be an integer from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return value
    }

    /// The option as one of `choices` (value for each accepted word), or nil when not given.
    public func choice<T>(_ name: String, _ choices: KeyValuePairs<String, T>) throws(UsageError) -> T? {
        guard let text = values[name] else { return nil }
        guard let match = choices.first(where: { $0.key == text }) else {
            let words = choices.map(\.key)
            throw error("\(described(name)) must be \(words.dropLast().joined(separator: ", ")) or \(words.last ?? ""), not \"\(text)\"")
        }
        return match.value
    }
}
