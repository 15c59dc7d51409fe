import PrintableText

/// What a command line asks for.
public enum ParseOutcome: Sendable {
    /// Run the command at `invocation.path`.
    case run(Invocation)
    /// Print this help text to stdout and exit 0.
    case help(String)
    /// Print the version and exit 0.
    case version
}

/// A command line that does not fit the command table: one line saying why, and one saying where the help is.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    /// `see tokencall doctor --help`: the help of the command reached, which would push the message out of sight.
    public let seeHelp: String

    init(_ message: String, path: [String]) {
        let command = path.joined(separator: " ")
        self.message = "\(command): \(message)"
        seeHelp = "see \(command) --help"
    }

    public var description: String { message }
}

extension Command {
    /// Parses `arguments` (without the program name) against this command table.
    ///
    /// Options come as `--name value` or `--name=value`; `--` ends options; `-h`/`--help` anywhere asks
    /// for the help of the command reached so far; `--version` is understood at the top.
    public func parse(_ arguments: [String], environment: [String: String] = [:]) throws(UsageError) -> ParseOutcome {
        var command = self
        var path = [name]
        var index = 0
        while index < arguments.count, let next = command.subcommand(named: arguments[index]) {
            command = next
            path.append(next.name)
            index += 1
        }
        let asksForHelp = index < arguments.count && ["-h", "--help", "--version"].contains(arguments[index])
        if index == arguments.count || arguments[index].hasPrefix("-"), !asksForHelp,
           let fallback = command.defaultSubcommand.flatMap(command.subcommand(named:)) {
            command = fallback
            path.append(fallback.name)
        }
        func fail(_ message: String) -> UsageError { UsageError(message, path: path) }
        let takesCommand = !command.subcommands.isEmpty && command.positionals.isEmpty
        func unknownCommand(_ word: String) -> UsageError {
            let suggestion = command.suggestion(for: word)
            return fail(suggestion.isEmpty
                ? "unknown command (not shown, as it may be a secret); one of: \(command.subcommands.map(\.name).joined(separator: ", "))"
                : "unknown command\(suggestion)")
        }
        // A word where a command goes is a command, whatever follows it (the options of the command meant, --help).
        if takesCommand, index < arguments.count, !arguments[index].hasPrefix("-") { throw unknownCommand(arguments[index]) }

        var values: [String: String] = [:]
        var positionals: [String] = []
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" { optionsEnded = true; continue }
            if argument == "-h" || argument == "--help" { return .help(command.usage(path: path)) }
            if argument == "--version", path.count == 1 { return .version }
            guard argument.hasPrefix("--") else {
                let name = String(argument.prefix { $0 != "=" })
                throw fail("unknown option \(name)\(command.suggestion(for: name))")
            }
            let body = argument.dropFirst(2)
            let (name, inline) = body.firstIndex(of: "=").map {
                (String(body[..<$0]), String(body[body.index(after: $0)...]))
            } ?? (String(body), nil)
            guard let option = command.option(named: name) else {
                throw fail("unknown option --\(name)\(command.suggestion(for: name))")
            }
            guard values[name] == nil else { throw fail("--\(name) is given twice") }
            if let placeholder = option.placeholder {
                if let inline {
                    values[name] = inline
                } else if index < arguments.count {
                    values[name] = arguments[index]
                    index += 1
                } else {
                    throw fail("--\(name) needs a value (\(placeholder))")
                }
            } else {
                guard inline == nil else { throw fail("--\(name) takes no value") }
                values[name] = ""
            }
        }

        if takesCommand {
            if let word = positionals.first { throw unknownCommand(word) }
            throw fail("missing command; one of: \(command.subcommands.map(\.name).joined(separator: ", "))")
        }
        var environmentSources: [String: String] = [:]
        var defaults: [String: String] = [:]
        for option in command.options where values[option.name] == nil {
            if let variable = option.environment.first(where: { environment[$0]?.isEmpty == false }) {
                values[option.name] = environment[variable]
                environmentSources[option.name] = variable
            } else if let value = option.defaultValue {
                defaults[option.name] = value
            } else if option.isRequired {
                throw fail("missing --\(option.name) \(option.placeholder ?? "")".trimmingTrailingSpace())
            }
        }
        for option in command.options {
            guard let check = option.check, let text = values[option.name] ?? defaults[option.name], let problem = check(text) else { continue }
            let name = environmentSources[option.name].map { "\($0) (for --\(option.name))" } ?? "--\(option.name)"
            throw fail("\(name) \(problem), not \"\(text.escapedForPrinting)\"")
        }
        if positionals.count > command.positionals.count, command.positionals.last?.repeats != true {
            throw fail(command.tooManyArguments(positionals.count - command.positionals.count))
        }
        if let missing = command.positionals.dropFirst(positionals.count).first(where: \.isRequired) {
            throw fail("missing \(missing.name)")
        }
        return .run(Invocation(path: path, values: values, defaults: defaults, environmentSources: environmentSources,
                               positionals: positionals, command: command))
    }

    /// Why `count` more arguments than the command takes are wrong, without showing them: a value given without its
    /// option may be a certificate.
    func tooManyArguments(_ count: Int) -> String {
        let takes = positionals.isEmpty ? "none" : "only " + positionals.map(\.name).joined(separator: " ")
        let example = options.first { $0.placeholder != nil }.map { ", such as --\($0.name) \($0.placeholder!)" } ?? ""
        return "\(count) unexpected argument\(count == 1 ? "" : "s") (not shown, as \(count == 1 ? "it" : "one") may be a secret): it takes \(takes);"
            + " give each value after its option\(example)"
    }

    /// " (did you mean --uid?)" when a known name is close to `word`.
    func suggestion(for word: String) -> String {
        let bare = String(word.drop { $0 == "-" })
        let names = options.map { "--" + $0.name } + subcommands.map(\.name)
        let best = names.min { editDistance(bare, String($0.drop { $0 == "-" })) < editDistance(bare, String($1.drop { $0 == "-" })) }
        guard let best, editDistance(bare, String(best.drop { $0 == "-" })) <= max(2, bare.count / 3) else { return "" }
        return " (did you mean \(best)?)"
    }
}

/// Levenshtein distance, for suggestions.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    var row = Array(0...b.count)
    for i in 1...max(1, a.count) where !a.isEmpty {
        var previous = row[0]
        row[0] = i
        for j in stride(from: 1, through: b.count, by: 1) {
            let saved = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
            previous = saved
        }
    }
    return row[b.count]
}

extension String {
    func trimmingTrailingSpace() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
