import Arguments
import OutputFiles

/// JUnit XML as Jenkins, GitLab and GitHub's reporters read it (`test --junit`, `doctor --junit`): `testsuites`, a
/// `testsuite` each with its `testcase`s, a case's `failure` (message and text) or `skipped`, and its `system-out`.
struct JUnitReport {
    struct Suite {
        let name: String
        let cases: [Case]
    }

    struct Case {
        let classname: String
        let name: String
        var file: String?
        var seconds: Double = 0
        /// Why it failed: a one-line message and the text below it.
        var failure: (message: String, text: String)?
        /// Why it was not run.
        var skipped: String?
        var output = ""
    }

    let name: String
    let suites: [Suite]

    var xml: String {
        let cases = suites.flatMap(\.cases)
        var lines = [#"<?xml version="1.0" encoding="UTF-8"?>"#,
                     #"<testsuites name="\#(Self.escaped(name))" tests="\#(cases.count)" failures="\#(cases.count { $0.failure != nil })" "#
                        + #"errors="0" skipped="\#(cases.count { $0.skipped != nil })" time="\#(Self.seconds(cases.map(\.seconds).reduce(0, +)))">"#]
        for suite in suites {
            lines.append(#"  <testsuite name="\#(Self.escaped(suite.name))" tests="\#(suite.cases.count)" "#
                         + #"failures="\#(suite.cases.count { $0.failure != nil })" errors="0" skipped="\#(suite.cases.count { $0.skipped != nil })" "#
                         + #"time="\#(Self.seconds(suite.cases.map(\.seconds).reduce(0, +)))">"#)
            for test in suite.cases {
                let file = test.file.map { #" file="\#(Self.escaped($0))""# } ?? ""
                lines.append(#"    <testcase classname="\#(Self.escaped(test.classname))" name="\#(Self.escaped(test.name))"\#(file) "#
                             + #"time="\#(Self.seconds(test.seconds))">"#)
                if let failure = test.failure {
                    lines.append(#"      <failure message="\#(Self.escaped(failure.message))" type="failure">\#(Self.escaped(failure.text))</failure>"#)
                }
                if let skipped = test.skipped { lines.append(#"      <skipped message="\#(Self.escaped(skipped))"/>"#) }
                if !test.output.isEmpty { lines.append("      <system-out>\(Self.escaped(test.output))</system-out>") }
                lines.append("    </testcase>")
            }
            lines.append("  </testsuite>")
        }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `--junit FILE` of `test` and `doctor`.
    static let junit: OptionKey<String?> = .text(
        "junit", "FILE", help: "also write the results as JUnit XML: a testsuite per scenario file (test), a testcase per check (doctor); "
            + "never over a file that is there")

    /// The file `--junit` names, created before anything runs (never over what is there); nil without `--junit`,
    /// `.failure` (said on stderr) when it cannot be created.
    static func file(_ args: Invocation, for command: String) -> Result<OutputFile?, OutputFile.Failure> {
        guard let path = args[junit] else { return .success(nil) }
        do throws(OutputFile.Failure) { return .success(try OutputFile(path: path, overwrite: false)) } catch {
            Console.error("tokencall \(command): --junit: \(error)")
            return .failure(error)
        }
    }

    /// Writes the report into `file` and closes it; false (said on stderr) when the write fails.
    func write(to file: OutputFile, for command: String) -> Bool {
        do throws(OutputFile.Failure) {
            try file.write(Array(xml.utf8))
            file.close()
            return true
        } catch {
            Console.error("tokencall \(command): --junit: \(error)")
            return false
        }
    }

    private static func seconds(_ value: Double) -> String {
        let millis = Int64((max(0, value) * 1000).rounded())
        let fraction = String(millis % 1000)
        return "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// Text as XML holds it in an attribute or an element: markup escaped, and what XML 1.0 cannot hold (controls but
    /// tab and line feed, U+FFFE, U+FFFF) written as `\u001b`.
    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n", "\t": out.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
