import Foundation
import PrintableText

/// The checks of one server, as `tokencall doctor` prints them.
public struct DoctorReport: Sendable, Encodable {
    public let url: String
    public let checks: [Check]

    /// `url` is shown without the user, password and query that may hold a credential.
    public init(url: URL, checks: [Check]) {
        self.url = url.absoluteString.urlWithoutCredentials
        self.checks = checks
    }

    /// True when every check passed.
    public var ok: Bool { checks.allSatisfy(\.ok) }

    /// `ok   latency: p50 3 ms, …`, `warn tls-expiry: … → what to do`, `FAIL lifetime: … → what to do` or `skip clock:
    /// not checked, because answer failed`, one line per check, then a count of the failures (the causes) and of the checks
    /// they left unchecked; escaped for printing.
    public var text: String {
        let lines = checks.map { check in
            let mark = check.isWarning ? "warn " : check.ok ? "ok   " : check.skippedBecause == nil ? "FAIL " : "skip "
            return mark + "\(check.name.rawValue): \(check.detail)"
        }
        let skipped = checks.count { $0.skippedBecause != nil }
        let failed = checks.count { !$0.ok } - skipped
        let warned = checks.count(where: \.isWarning)
        let warnings = warned == 0 ? "" : ", \(warned) with a warning"
        let unchecked = skipped == 0 ? "" : ", \(skipped) not checked because of \(failed == 1 ? "it" : "them")"
        let summary = failed == 0 ? "all \(checks.count) checks passed\(warnings)"
            : "\(failed) of \(checks.count) checks failed\(unchecked)\(warnings)"
        return (lines + [summary]).map(\.escapedForPrinting).joined(separator: "\n")
    }

    /// One JSON object, `{"checks": [{"detail", "name", "ok", "skipped", "warning"}], "ok", "url"}`, escaped for printing.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self).escapedForPrinting
    }

    private enum Keys: String, CodingKey { case url, ok, checks }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(url, forKey: .url)
        try container.encode(ok, forKey: .ok)
        try container.encode(checks, forKey: .checks)
    }
}

extension Check: Encodable {
    private enum Keys: String, CodingKey { case name, ok, warning, skipped, detail }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(name.rawValue, forKey: .name)
        try container.encode(ok, forKey: .ok)
        if isWarning { try container.encode(true, forKey: .warning) }
        if let cause = skippedBecause { try container.encode(cause.rawValue, forKey: .skipped) }
        try container.encode(detail, forKey: .detail)
    }
}
