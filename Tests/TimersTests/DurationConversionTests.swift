import Foundation
import Testing
import Timers

/// The one place a Duration becomes a number: each conversion's rounding, which the screen, the logs and the wire rely on.
@Suite struct DurationConversionTests {
    @Test func wholeUnitsRoundTowardZeroAndUpOnlyWhereAsked() {
        let d: Duration = .milliseconds(2_500) + .nanoseconds(1_700)
        #expect(d.wholeSeconds == 2)
        #expect(d.secondsRoundedUp == 3)
        #expect(Duration.seconds(2).secondsRoundedUp == 2, "a whole second is not rounded up")
        #expect(d.wholeMilliseconds == 2_500)
        #expect(d.wholeMicroseconds == 2_500_001)
        #expect(abs(d.millisecondsValue - 2_500.0017) < 1e-9)
        #expect(Duration.milliseconds(-1_500).wholeSeconds == -1)
        #expect(Duration.milliseconds(-1_500).wholeMilliseconds == -1_500)
    }
}

/// No code outside `Timers` takes a Duration apart by hand (`components`, `attoseconds`, a division by a unit).
@Suite struct DurationConversionPlaceTests {
    @Test func everyConversionGoesThroughTimers() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let byHand = try Regex(#"\.components\.(seconds|attoseconds)|\battoseconds\b|/ \.(seconds|milliseconds|microseconds)\(1\)"#)
        var found: [String] = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "swift" && file.deletingLastPathComponent().lastPathComponent != "Timers" {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() where line.contains(byHand) {
                found.append("\(file.lastPathComponent):\(number + 1)")
            }
        }
        #expect(found.isEmpty, "a Duration converted by hand; use Timers' wholeSeconds, wholeMilliseconds, secondsValue …: \(found)")
    }
}
