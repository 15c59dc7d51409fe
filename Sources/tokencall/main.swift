import AccessToken
import Arguments
import Foundation

/// The whole command table; usage text is generated from it.
let tokencall = Command(
    "tokencall",
    summary: "Simulate an Agora-style video call and watch its token live, renew and expire.",
    subcommands: [JoinCommand.command, TokenCommands.group, ServeCommand.command]
)

// `tokencall` alone, or with join's options, joins: the call screen in a terminal.
let given = Array(CommandLine.arguments.dropFirst())
let startsWithOption = given.first.map { $0.hasPrefix("-") && !["-h", "--help", "--version"].contains($0) } ?? true
let arguments = startsWithOption ? ["join"] + given : given
let exitCode: Int32
do {
    switch try tokencall.parse(arguments, environment: ProcessInfo.processInfo.environment) {
    case .help(let text):
        print(text)
        exitCode = 0
    case .version:
        print("tokencall \(TokenCallVersion.current)")
        exitCode = 0
    case .run(let invocation):
        switch invocation.path.last {
        case "serve": exitCode = try ServeCommand.run(invocation)
        case "join": exitCode = try await JoinCommand.run(invocation)
        default: exitCode = try TokenCommands.run(invocation)
        }
    }
} catch {
    Console.error(error.message)
    Console.usage(error.usage)
    exitCode = ExitCode.usage
}
exit(exitCode)
