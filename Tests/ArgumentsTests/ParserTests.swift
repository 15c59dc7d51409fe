import TestSupport
import Testing
@testable import Arguments

private let build = Command(
    "build", summary: "Build a thing.",
    options: [
        .value("app-id", "ID", help: "App ID", environment: ["APP_ID"], required: true),
        .value("uid", "N", help: "uid"),
        .value("role", "ROLE", help: "role", default: "publisher"),
        .flag("json", help: "JSON output"),
    ])
private let inspect = Command("inspect", summary: "Inspect.", positionals: [Positional("TOKEN", help: "the token")])
private let root = Command("tool", summary: "A tool.", subcommands: [Command("token", summary: "Tokens.", subcommands: [build, inspect])])

private func run(_ words: [String], env: [String: String] = [:]) throws -> Invocation {
    try #require(try root.parse(words, environment: env).invocation)
}

extension ParseOutcome {
    var invocation: Invocation? { if case .run(let invocation) = self { invocation } else { nil } }
    var help: String? { if case .help(let text) = self { text } else { nil } }
    var isVersion: Bool { if case .version = self { true } else { false } }
}

private func failure(_ words: [String], env: [String: String] = [:]) -> String? {
    do {
        _ = try root.parse(words, environment: env)
        return nil
    } catch {
        return error.message
    }
}

@Suite struct ParserTests {
    @Test func readsSpacedAndInlineValuesFlagsAndThePath() throws {
        let invocation = try run(["token", "build", "--app-id", "abc", "--uid=42", "--json"])
        #expect(invocation.path == ["tool", "token", "build"])
        #expect(invocation.string("app-id") == "abc")
        #expect(invocation.string("uid") == "42")
        #expect(invocation.has("json"))
        #expect(!invocation.has("role"))
    }

    @Test func aValueMayStartWithADash() throws {
        let invocation = try run(["token", "build", "--app-id", "x", "--uid", "-5"])
        #expect(invocation.string("uid") == "-5")
    }

    @Test func environmentFillsWhatTheCommandLineLeavesOut() throws {
        #expect(try run(["token", "build"], env: ["APP_ID": "from-env"]).string("app-id") == "from-env")
        #expect(try run(["token", "build", "--app-id", "cli"], env: ["APP_ID": "env"]).string("app-id") == "cli")
        #expect(failure(["token", "build"], env: ["APP_ID": ""]) == "tool token build: missing --app-id ID")
    }

    @Test func aValueFromTheEnvironmentIsDescribedByTheVariable() throws {
        #expect(try run(["token", "build"], env: ["APP_ID": "abc"]).described("app-id") == "APP_ID (for --app-id)")
        let fromArguments = try run(["token", "build", "--app-id", "abc"])
        #expect(fromArguments.described("app-id") == "--app-id")
    }

    @Test func unknownOptionsSaySoAndSuggestTheClosest() {
        #expect(failure(["token", "build", "--app-id", "x", "--uidd", "1"])
                == "tool token build: unknown option --uidd (did you mean --uid?)")
        #expect(failure(["token", "build", "--app-id", "x", "--zzzz"]) == "tool token build: unknown option --zzzz")
        #expect(failure(["token", "biuld"]) == "tool token: unknown command (did you mean build?)")
        #expect(failure(["token"]) == "tool token: missing command; one of: build, inspect")
    }

    /// A mistyped command is named as one whatever follows it: the options of the command meant, or --help.
    @Test func aMistypedCommandIsNamedBeforeWhatFollowsIt() {
        #expect(failure(["tokn", "build", "--app-id", "x"]) == "tool: unknown command (did you mean token?)")
        #expect(failure(["tokn", "--help"]) == "tool: unknown command (did you mean token?)")
        #expect(failure(["token", "biuld", "--app-id", "x", "--uid", "1"]) == "tool token: unknown command (did you mean build?)")
    }

    /// The help would push the error out of sight: the error names where the help is instead.
    @Test func aUsageErrorPointsAtTheHelpOfTheCommandReached() throws {
        do {
            _ = try root.parse(["token", "build", "--uidd", "1"])
            Issue.record("parsed")
        } catch {
            #expect(error.seeHelp == "see tool token build --help")
        }
    }

    @Test func malformedCommandLinesNameTheProblem() {
        #expect(failure(["token", "build", "--app-id"]) == "tool token build: --app-id needs a value (ID)")
        #expect(failure(["token", "build", "--app-id", "a", "--app-id", "b"]) == "tool token build: --app-id is given twice")
        #expect(failure(["token", "build", "--app-id", "a", "--json=yes"]) == "tool token build: --json takes no value")
        #expect(failure(["token", "inspect"]) == "tool token inspect: missing TOKEN")
        #expect(failure(["token", "build", "--app-id", "a", "-x"]) == "tool token build: unknown option -x")
    }

    /// A certificate pasted without its option must not end up in a terminal's scrollback or a CI log.
    @Test func strayWordsAreCountedNeverShown() {
        let secret = TestCredentials.certificate
        let messages = [
            failure(["token", "build", "--app-id", "a", "extra", secret]),
            failure(["token", "inspect", "TOKEN", secret]),
            failure(["token", secret]),
            failure(["token", "build", "--app-id", "a", "-app-certificate=\(secret)"]),
        ]
        #expect(messages == [
            "tool token build: 2 unexpected arguments (not shown, as one may be a secret): it takes none; give each value after its option, such as --app-id ID",
            "tool token inspect: 1 unexpected argument (not shown, as it may be a secret): it takes only TOKEN; give each value after its option",
            "tool token: unknown command (not shown, as it may be a secret); one of: build, inspect",
            "tool token build: unknown option -app-certificate",
        ])
    }

    @Test func defaultsAreReadAsGivenValuesAreButAreNotGiven() throws {
        let invocation = try run(["token", "build", "--app-id", "a"])
        #expect(!invocation.has("role"))
        #expect(invocation.string("role") as String == "publisher")
        #expect(invocation.string("uid") == nil, "no default, not given")
        #expect(invocation.string("app-id") as String == "a", "required, so always set")
    }

    @Test func aLineThatNamesNoSubcommandRunsTheDefaultOne() throws {
        let join = Command("join", summary: "Join.", options: [.value("uid", "N", help: "uid", default: "0")], run: { _ in 3 })
        let app = Command("app", summary: "An app.", subcommands: [join, build], defaultSubcommand: "join")
        for words in [[], ["--uid", "7"], ["join", "--uid", "7"]] {
            guard case .run(let invocation) = try app.parse(words) else {
                Issue.record("\(words) ran nothing")
                continue
            }
            #expect(invocation.path == ["app", "join"], "\(words)")
        }
        guard case .help(let text) = try app.parse(["--help"]) else {
            Issue.record("--help is the app's help")
            return
        }
        #expect(text.hasPrefix("usage: app <command>"))
    }

    @MainActor
    @Test func eachCommandCarriesWhatItRuns() async throws {
        let join = Command("join", summary: "Join.", run: { invocation in invocation.has("fast") ? 9 : 3 })
        let app = Command("app", summary: "An app.", subcommands: [join, build])
        guard case .run(let joining) = try app.parse(["join"]), case .run(let building) = try app.parse(["build", "--app-id", "x"]) else {
            Issue.record("expected commands to run")
            return
        }
        #expect(try await joining.run() == 3)
        await #expect(throws: UsageError.self) { try await building.run() }
    }

    @Test func dashDashEndsOptions() throws {
        let invocation = try run(["token", "inspect", "--", "--not-an-option"])
        #expect(invocation.positionals == ["--not-an-option"])
    }

    @Test func helpAndVersionAreUnderstood() throws {
        let text = try #require(try root.parse(["token", "build", "--uid", "1", "--help"]).help)
        #expect(text.hasPrefix("usage: tool token build [options]"))
        #expect(try root.parse(["--version"]).isVersion)
    }

    @Test func usageListsEveryOptionWithDefaultsAndEnvironment() throws {
        let text = try #require(try root.parse(["token", "build", "-h"]).help)
        #expect(text.contains("--app-id ID"))
        #expect(text.contains("[env APP_ID]"))
        #expect(text.contains("(required)"))
        #expect(text.contains("--role ROLE"))
        #expect(text.contains("(default publisher)"))
        #expect(text.contains("--json"))
        let top = try #require(try root.parse(["--help"]).help)
        #expect(top.contains("token build"))
        #expect(top.contains("token inspect"))
    }

    @Test func editDistanceCountsEdits() {
        #expect(editDistance("uid", "uid") == 0)
        #expect(editDistance("uidd", "uid") == 1)
        #expect(editDistance("", "abc") == 3)
        #expect(editDistance("kitten", "sitting") == 3)
    }
}
