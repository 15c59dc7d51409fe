import Testing
@testable import Arguments

private enum Mode: String, CaseIterable, Sendable { case fast, slow }

private enum Keys {
    static let fps: OptionKey<Int> = .integer("fps", help: "frames a second", in: 1...60, environment: ["FPS"], default: 15)
    static let seed: OptionKey<UInt64?> = .integer("seed", help: "seed", in: 0...99, otherwise: "random")
    static let mode: OptionKey<Mode> = .choice("mode", "MODE", help: "how", default: .fast)
    static let size: OptionKey<Int?> = .choice("size", "SIZE", help: "", [("small", 1), ("large", 2)])
    static let quiet: OptionKey<Bool> = .flag("quiet", help: "say less")
    static let name: OptionKey<String> = .text("name", "NAME", help: "who", default: "anon")
    static let password = OptionKey<String?>.text("password", "PW", help: "a secret", environment: ["PW"]).kept(.never)
    static let url = OptionKey<String?>.text("url", "URL", help: "where").kept(.shown { String($0.prefix { $0 != "?" }) })
    static let all = [fps.option, seed.option, mode.option, size.option, quiet.option, name.option]
}

private let play = Command("play", summary: "Play.", options: Keys.all, positionals: [Positional("FILE", help: "a file", required: false)])
private let tool = Command("tool", summary: "A tool.", subcommands: [play, Command("other", summary: "Other.")])

private func parse(_ words: [String], env: [String: String] = [:]) throws(UsageError) -> Invocation {
    guard case .run(let invocation) = try tool.parse(words, environment: env) else { preconditionFailure("not a run") }
    return invocation
}

@Suite struct OptionKeyTests {
    @Test func aRecordKeepsWhatWasGivenAsEachDeclarationSaysAndNoDefault() throws {
        let record = Command("record", summary: "Record.", options: Keys.all + [Keys.password.option, Keys.url.option])
        func parse(_ words: [String], env: [String: String] = [:]) throws -> Invocation {
            guard case .run(let invocation) = try record.parse(words, environment: env) else { preconditionFailure("not a run") }
            return invocation
        }
        let given = try parse(["--fps", "30", "--quiet", "--url", "https://host/t?key=k", "--password", "pw"], env: ["PW": "x"])
        #expect(given.kept() == ["fps": "30", "quiet": "", "url": "https://host/t"])
        #expect(given.kept(leavingOut: [Keys.fps.option]) == ["quiet": "", "url": "https://host/t"])
        #expect(try parse([], env: ["PW": "secret"]).kept().isEmpty)
    }

    @Test func aKeyReadsItsTypedValueOrItsDefault() throws {
        let given = try parse(["play", "--fps", "30", "--seed", "7", "--mode", "slow", "--size", "large", "--quiet", "--name", "ann"])
        #expect(given[Keys.fps] == 30)
        #expect(given[Keys.seed] == 7)
        #expect(given[Keys.mode] == .slow)
        #expect(given[Keys.size] == 2)
        #expect(given[Keys.quiet])
        #expect(given[Keys.name] == "ann")
        let bare = try parse(["play"])
        #expect(bare[Keys.fps] == 15)
        #expect(bare[Keys.seed] == nil)
        #expect(bare[Keys.mode] == .fast)
        #expect(bare[Keys.size] == nil)
        #expect(!bare[Keys.quiet])
        #expect(bare[Keys.name] == "anon")
        #expect(!bare.has(Keys.fps))
    }

    /// The range the help shows is the one the parser enforces: its ends are taken, one past either is refused.
    @Test func eachDocumentedRangeIsTheOneEnforced() throws {
        let help = play.usage(path: ["tool", "play"])
        for (key, range) in [(Keys.fps.option, 1...60), (Keys.seed.option, 0...99)] {
            #expect(key.help.hasSuffix(", \(range.lowerBound)...\(range.upperBound)"), "\(key.help)")
            #expect(help.split(separator: "\n").contains { $0.hasPrefix("  --\(key.name) N") && $0.contains("\(range.lowerBound)...\(range.upperBound)") })
            for inside in [range.lowerBound, range.upperBound] { _ = try parse(["play", "--\(key.name)", "\(inside)"]) }
            for outside in [range.lowerBound - 1, range.upperBound + 1] {
                #expect(throws: UsageError("--\(key.name) must be an integer from \(range.lowerBound) to \(range.upperBound), not \"\(outside)\"",
                                           path: ["tool", "play"])) { try parse(["play", "--\(key.name)", "\(outside)"]) }
            }
        }
    }

    @Test func aChoiceListsItsWordsInTheHelpAndTheError() throws {
        #expect(Keys.mode.option.help == "how: fast or slow")
        #expect(Keys.size.option.help == "small or large")
        #expect(throws: UsageError("--mode must be fast or slow, not \"medium\"", path: ["tool", "play"])) { try parse(["play", "--mode", "medium"]) }
    }

    @Test func aBadValueFromTheEnvironmentIsRefusedAtParseNamingTheVariableAndEscaped() throws {
        #expect(throws: UsageError("FPS (for --fps) must be an integer from 1 to 60, not \"9\\u001b[2J\"", path: ["tool", "play"])) {
            try parse(["play"], env: ["FPS": "9\u{1B}[2J"])
        }
        #expect(try parse(["play"], env: ["FPS": "24"])[Keys.fps] == 24)
    }

    @Test func completionAndTheManPageComeFromTheTable() {
        let bash = tool.bashCompletion()
        #expect(bash.contains("'play:--mode') words='fast slow'"))
        #expect(bash.contains("'--fps --seed --mode --size --quiet --name --help'"))
        #expect(bash.contains("complete -o default -F _tool tool"))
        let zsh = tool.zshCompletion()
        #expect(zsh.hasPrefix("#compdef tool\n"))
        #expect(zsh.contains("'--mode[how\\: fast or slow]:MODE:(fast slow)'"))
        #expect(zsh.contains("'--quiet[say less]'"))
        #expect(zsh.contains(#"'1:command:((play\:"Play." other\:"Other."))'"#))
        let man = tool.manPage(version: "1.0")
        #expect(man.contains(".SH TOOL PLAY"))
        #expect(man.contains("\\fB\\-\\-fps\\fR \\fIN\\fR\nframes a second, 1...60 (default 15) [env FPS]"))
    }
}
