/// A command line option: a flag, or a name that takes a value.
public struct Option: Sendable {
    public let name: String
    /// What the value is called in usage ("ID", "SECONDS"); nil for a flag.
    public let placeholder: String?
    public let help: String
    /// Environment variable read when the option is not given.
    public let environment: [String]
    /// The value used when the option is not given (read and checked as a given one is), shown in usage.
    public let defaultValue: String?
    /// What happens when the option is not given, in words for usage ("random", "now"); the command decides.
    public let defaultNote: String?
    public let isRequired: Bool
    /// The words the value may be (a choice), for usage and completion; empty when any value may be given.
    public let choices: [String]
    /// Why a given (or default) value is refused ("must be an integer from 1 to 60"); nil when it is taken. The parser
    /// applies it, so a read never sees a value it refuses.
    let check: (@Sendable (String) -> String?)?
    /// How a record of the command line (a recording's header, a test's artifacts) keeps the value.
    public internal(set) var kept: Kept = .asGiven

    /// How a record of the command line keeps an option's value.
    public enum Kept: Sendable {
        case asGiven
        /// Left out: a credential, or what is about the run rather than the call.
        case never
        /// Shown as this function makes it (a URL without its credentials).
        case shown(@Sendable (String) -> String)
    }

    /// An option that takes a value: `--name VALUE` or `--name=VALUE`.
    public static func value(
        _ name: String, _ placeholder: String, help: String, environment: [String] = [],
        default defaultValue: String? = nil, otherwise defaultNote: String? = nil, required: Bool = false
    ) -> Option {
        Option(name: name, placeholder: placeholder, help: help, environment: environment,
               defaultValue: defaultValue, defaultNote: defaultNote, isRequired: required, choices: [], check: nil)
    }

    /// An option whose value is checked by `check` when the line is parsed; `choices` are the words it takes, if few.
    static func checked(
        _ name: String, _ placeholder: String, help: String, environment: [String], default defaultValue: String?,
        otherwise defaultNote: String?, choices: [String] = [], check: @escaping @Sendable (String) -> String?
    ) -> Option {
        Option(name: name, placeholder: placeholder, help: help, environment: environment,
               defaultValue: defaultValue, defaultNote: defaultNote, isRequired: false, choices: choices, check: check)
    }

    /// The same option with a default of its own in a command's table (read and checked as a given value is).
    public func defaulting(to value: String, help: String) -> Option {
        Option(name: name, placeholder: placeholder, help: help, environment: environment, defaultValue: value,
               defaultNote: nil, isRequired: false, choices: choices, check: check, kept: kept)
    }

    /// An option without a value: `--name`.
    public static func flag(_ name: String, help: String) -> Option {
        Option(name: name, placeholder: nil, help: help, environment: [], defaultValue: nil, defaultNote: nil, isRequired: false,
               choices: [], check: nil)
    }
}

/// A positional argument.
public struct Positional: Sendable {
    public let name: String
    public let help: String
    public let isRequired: Bool
    /// The last positional may be given any number of times (`SCENARIO...`).
    public let repeats: Bool

    public init(_ name: String, help: String, required: Bool = true, repeats: Bool = false) {
        self.name = name
        self.help = help
        self.isRequired = required
        self.repeats = repeats
    }
}

/// A command: what it takes and what it runs, or the subcommands it groups.
public struct Command: Sendable {
    /// What a command does with its parsed line: the process's exit status.
    public typealias Run = @MainActor @Sendable (Invocation) async throws(UsageError) -> Int32

    public let name: String
    public let summary: String
    public let options: [Option]
    public let positionals: [Positional]
    public let subcommands: [Command]
    /// The subcommand a line names none of runs (`tokencall` alone, or with join's options, joins).
    public let defaultSubcommand: String?
    /// Lines shown after the option list (examples, exit codes).
    public let epilogue: String?
    public let run: Run?

    public init(
        _ name: String, summary: String, options: [Option] = [], positionals: [Positional] = [],
        subcommands: [Command] = [], defaultSubcommand: String? = nil, epilogue: String? = nil, run: Run? = nil
    ) {
        self.name = name
        self.summary = summary
        self.options = options
        self.positionals = positionals
        self.subcommands = subcommands
        self.defaultSubcommand = defaultSubcommand
        self.epilogue = epilogue
        self.run = run
    }

    /// The option of this command called `name`.
    public func option(named name: String) -> Option? { options.first { $0.name == name } }
    func subcommand(named name: String) -> Command? { subcommands.first { $0.name == name } }
}
