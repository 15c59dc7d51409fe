/// A command line option: a flag, or a name that takes a value.
public struct Option: Sendable {
    public let name: String
    /// What the value is called in usage ("ID", "SECONDS"); nil for a flag.
    public let placeholder: String?
    public let help: String
    /// Environment variable read when the option is not given.
    public let environment: [String]
    /// The default, as shown in usage; the command applies it.
    public let defaultValue: String?
    public let isRequired: Bool

    /// An option that takes a value: `--name VALUE` or `--name=VALUE`.
    public static func value(
        _ name: String, _ placeholder: String, help: String, environment: [String] = [],
        default defaultValue: String? = nil, required: Bool = false
    ) -> Option {
        Option(name: name, placeholder: placeholder, help: help, environment: environment,
               defaultValue: defaultValue, isRequired: required)
    }

    /// An option without a value: `--name`.
    public static func flag(_ name: String, help: String) -> Option {
        Option(name: name, placeholder: nil, help: help, environment: [], defaultValue: nil, isRequired: false)
    }
}

/// A positional argument.
public struct Positional: Sendable {
    public let name: String
    public let help: String
    public let isRequired: Bool

    public init(_ name: String, help: String, required: Bool = true) {
        self.name = name
        self.help = help
        self.isRequired = required
    }
}

/// A command: what it takes, or the subcommands it groups.
public struct Command: Sendable {
    public let name: String
    public let summary: String
    public let options: [Option]
    public let positionals: [Positional]
    public let subcommands: [Command]
    /// Lines shown after the option list (examples, exit codes).
    public let epilogue: String?

    public init(
        _ name: String, summary: String, options: [Option] = [], positionals: [Positional] = [],
        subcommands: [Command] = [], epilogue: String? = nil
    ) {
        self.name = name
        self.summary = summary
        self.options = options
        self.positionals = positionals
        self.subcommands = subcommands
        self.epilogue = epilogue
    }

    func option(named name: String) -> Option? { options.first { $0.name == name } }
    func subcommand(named name: String) -> Command? { subcommands.first { $0.name == name } }
}
