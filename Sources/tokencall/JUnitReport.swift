import ScenarioRunner

/// `tokencall test --junit FILE`: JUnit XML as Jenkins, GitLab and GitHub's reporters read it — a testsuite per
/// scenario file, a testcase per scenario, a failure with the step's line and words, the events as system-out.
enum JUnitReport {
    static func xml(_ results: [(file: String, outcome: ScenarioRun.Outcome, seconds: Double)]) -> String {
        let failed = results.count { !$0.outcome.passed }
        var lines = [#"<?xml version="1.0" encoding="UTF-8"?>"#,
                     #"<testsuites name="tokencall test" tests="\#(results.count)" failures="\#(failed)" errors="0" time="\#(seconds(results.map(\.seconds).reduce(0, +)))">"#]
        for (file, outcome, time) in results {
            lines.append(#"  <testsuite name="\#(escaped(file))" tests="1" failures="\#(outcome.passed ? 0 : 1)" errors="0" skipped="0" time="\#(seconds(time))">"#)
            lines.append(#"    <testcase classname="tokencall.test" name="\#(escaped(outcome.scenario))" file="\#(escaped(file))" time="\#(seconds(time))">"#)
            if let failure = outcome.failure {
                lines.append(#"      <failure message="\#(escaped(failure.description))" type="step">\#(escaped((["\(file):\(failure.line): \(failure.step)", failure.words, "the last events:"] + failure.lastEvents).joined(separator: "\n")))</failure>"#)
            }
            let log = outcome.events.filter { !$0.isPeriodic }.map(\.textLine).joined(separator: "\n")
            lines.append("      <system-out>\(escaped(log))</system-out>")
            lines.append("    </testcase>")
            lines.append("  </testsuite>")
        }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func seconds(_ value: Double) -> String {
        let millis = Int64((value * 1000).rounded())
        let fraction = String(millis % 1000)
        return "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// Text as XML holds it in an attribute or an element: markup escaped, and what XML 1.0 cannot hold (controls but
    /// tab and line feed) written as `\u001b`.
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
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
