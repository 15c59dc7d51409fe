import Arguments
import Foundation
import TokenClient

/// The whole command table; usage text is generated from it, and each command carries what it runs.
let tokencall = Command(
    "tokencall",
    summary: "Simulate an Agora-style video call and watch its token live, renew and expire.",
    subcommands: [JoinCommand.command, TokenCommands.group, ServeCommand.command, DoctorCommand.command, TestCommand.command, ReplayCommand.command,
                  LoadCommand.command],
    defaultSubcommand: JoinCommand.command.name
)

let exitCode: Int32
do {
    switch try tokencall.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment) {
    case .help(let text):
        print(text)
        exitCode = ExitCode.ok
    case .version:
        print("tokencall \(TokenCallVersion.current)")
        exitCode = ExitCode.ok
    case .run(let invocation):
        exitCode = try await invocation.run()
    }
} catch {
    Console.error(error.message)
    Console.error(error.seeHelp)
    exitCode = ExitCode.usage
}
exit(exitCode)
