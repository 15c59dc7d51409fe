import Arguments
import Foundation
import TokenClient


let exitCode: Int32
do {
    switch try Tokencall.table.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment) {
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
