import Arguments
import TokenClient

/// The whole command table; usage, completion and the man page are generated from it, and each command carries what it runs.
enum Tokencall {
    static let table: Command = Command(
        "tokencall",
        summary: "Simulate an Agora-style video call and watch its token live, renew and expire.",
        subcommands: [JoinCommand.command, TokenCommands.group, ServeCommand.command, DoctorCommand.command, TestCommand.command,
                      ReplayCommand.command, LoadCommand.command, completion, help],
        defaultSubcommand: JoinCommand.command.name
    )


    /// `tokencall completion bash|zsh`: the completion script, from the table.
    static let completion: Command = Command(
        "completion", summary: "Print the shell completion script for bash or zsh.",
        positionals: [Positional("SHELL", help: "bash or zsh")],
        epilogue: """
        bash: source <(tokencall completion bash), or save it in ~/.local/share/bash-completion/completions/tokencall.
        zsh: tokencall completion zsh > "${fpath[1]}/_tokencall", then compinit.
        """,
        run: { args throws(UsageError) in
            switch args.positionals[0] {
            case "bash": print(table.bashCompletion(), terminator: "")
            case "zsh": print(table.zshCompletion(), terminator: "")
            default: throw args.error("SHELL must be bash or zsh")
            }
            return ExitCode.ok
        })

    static let man: OptionKey<Bool> = .flag("man", help: "print the manual page (roff) of every command instead: tokencall help --man | man -l -")

    /// `tokencall help [--man]`: the usage, or the man page, from the table.
    static let help: Command = Command(
        "help", summary: "Show the usage of every command, or with --man the manual page.", options: [man.option],
        run: { args throws(UsageError) in
            print(args[man] ? table.manPage(version: TokenCallVersion.current) : table.usageText, terminator: args[man] ? "" : "\n")
            return ExitCode.ok
        })
}
