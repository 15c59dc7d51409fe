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

    /// The options given (on the command line or through the environment), by name, as a record of the call keeps
    /// them (`Option.kept`): a flag's value is empty, credentials are left out. `leavingOut` are about the run, not
    /// the call (its output files).
    public func kept(leavingOut: [Option] = []) -> [String: String] {
        var kept: [String: String] = [:]
        for (name, value) in values where !leavingOut.contains(where: { $0.name == name }) {
            switch command.option(named: name)?.kept ?? .never {
            case .asGiven: kept[name] = value
            case .never: continue
            case .shown(let shown): kept[name] = shown(value)
            }
        }
        return kept
    }

    /// True when the flag or option was given (on the command line or through the environment).
    func has(_ name: String) -> Bool { values[name] != nil }

    /// True when the option's value came from its environment variable, not the command line.
    func isFromEnvironment(_ name: String) -> Bool { environmentSources[name] != nil }

    /// The option's value, or its default; nil when it has neither.
    func string(_ name: String) -> String? { values[name] ?? defaults[name] }

    /// The value of an option that is always set: it has a default, or is required. (Disfavoured: where an optional
    /// fits, the optional form is read.)
    @_disfavoredOverload
    func string(_ name: String) -> String { defaulted(name, string(name)) }

    /// How an error names the option: `--port`, or `SERVER_PORT (for --port)` when the value came from there.
    func described(_ name: String) -> String {
        environmentSources[name].map { "\($0) (for --\(name))" } ?? "--\(name)"
    }

    /// A usage error for this command.
    public func error(_ message: String) -> UsageError {
        UsageError(message, path: path)
    }

    private func defaulted<T>(_ name: String, _ value: T?) -> T {
        guard let value else { preconditionFailure("--\(name) is read as always set, but has no default and is not required") }
        return value
    }
}
