import Foundation
import Testing

/// Every range a command's help documents (`--fps N … 1...60`) is the one it enforces: one past either end is refused
/// with those same ends.
@Suite struct DocumentedRangeTests {
    /// Each command, with what it needs besides the option to reach the option's check.
    static let commands: [(words: [String], extra: [String])] = [
        (["join"], []), (["replay"], ["recording.jsonl"]), (["test"], ["scenario"]), (["serve"], []),
        (["doctor"], ["http://127.0.0.1:1"]), (["load"], ["--no-hub", "--token-url", "http://127.0.0.1:1"]),
        (["token", "build"], ["--channel", "c"]), (["token", "inspect"], ["token"]),
    ]
    static let credentials = ["APP_ID": String(repeating: "a", count: 32), "APP_CERTIFICATE": String(repeating: "b", count: 32)]

    /// `--name` and the ends of the range its help shows, from a command's `--help`.
    static func documentedRanges(_ help: String) throws -> [(name: String, low: Int128, high: Int128)] {
        // A row whose option is too wide has its help on the next line.
        var rows: [String] = []
        for line in help.split(separator: "\n") {
            if line.hasPrefix("  --") { rows.append(String(line)) } else if line.hasPrefix("      "), !rows.isEmpty { rows[rows.count - 1] += " " + line }
        }
        let range = try Regex(#"^  --([a-z-]+) .*?(-?\d+)\.\.\.(\d+)(?:;|$| \(| \[)"#)
        return rows.compactMap { row in
            guard let match = row.firstMatch(of: range), let name = match.output[1].substring,
                  let low = match.output[2].substring.flatMap({ Int128(String($0)) }),
                  let high = match.output[3].substring.flatMap({ Int128(String($0)) }) else { return nil }
            return (String(name), low, high)
        }
    }

    @Test(arguments: commands.indices)
    func eachDocumentedRangeIsTheOneEnforced(_ index: Int) throws {
        let (words, extra) = Self.commands[index]
        let help = try TokenCallProcess.run(words + ["--help"]).stdout
        let ranges = try Self.documentedRanges(help)
        #expect(!ranges.isEmpty || words == ["token", "inspect"], "\(words) documents no range: \(help)")
        for (name, low, high) in ranges {
            for outside in [low - 1, high + 1] {
                let result = try TokenCallProcess.run(words + extra + ["--\(name)", "\(outside)"], environment: Self.credentials)
                #expect(result.status == 64, "\(words) --\(name) \(outside): \(result.stderr)")
                #expect(result.stderr.contains("--\(name) must be") && result.stderr.contains("an integer from \(low) to \(high)"),
                        "\(words) documents --\(name) as \(low)...\(high) but says: \(result.stderr)")
            }
        }
    }

    /// Ranges that were enforced without being shown now show in the help, because the help is made from the check.
    @Test func rangesOnceLeftOutOfTheHelpAreShown() throws {
        let join = try Self.documentedRanges(try TokenCallProcess.run(["join", "--help"]).stdout)
        #expect(join.contains { $0 == ("duration", 1, 604_800) })
        let serve = try Self.documentedRanges(try TokenCallProcess.run(["serve", "--help"]).stdout)
        #expect(serve.contains { $0 == ("port", 0, 65_535) } && serve.contains { $0 == ("max-connections", 1, 10_000) })
    }
}
