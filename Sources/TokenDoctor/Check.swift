/// One thing `tokencall doctor` checks about a token server, and how it went.
public struct Check: Sendable, Equatable {
    /// The checks, in the order they are printed.
    public enum Name: String, Sendable, CaseIterable {
        case reachable
        case tlsVersion = "tls-version"
        case tlsChain = "tls-chain"
        case tlsName = "tls-name"
        case tlsExpiry = "tls-expiry"
        case httpsRedirect = "https-redirect"
        case latency, ping, answer, token, audience, signature, renewal, lifetime, clock, stampede
        case badInput = "bad-input"
        case cors
    }

    /// Passed, with what was seen; warned (passed, but soon it will not) or failed, with what was seen and what to do;
    /// or skipped, because the failure of the check named left it nothing to check.
    public enum Outcome: Sendable, Equatable {
        case passed(String)
        case warned(String, fix: String)
        case failed(String, fix: String)
        case skipped(because: Name)
    }

    public let name: Name
    public let outcome: Outcome

    public init(_ name: Name, _ outcome: Outcome) {
        self.name = name
        self.outcome = outcome
    }

    static func passed(_ name: Name, _ detail: String) -> Check { Check(name, .passed(detail)) }
    static func failed(_ name: Name, _ detail: String, fix: String) -> Check { Check(name, .failed(detail, fix: fix)) }
    static func warned(_ name: Name, _ detail: String, fix: String) -> Check { Check(name, .warned(detail, fix: fix)) }

    /// Passed, with a warning or without.
    public var ok: Bool {
        switch outcome {
        case .passed, .warned: true
        case .failed, .skipped: false
        }
    }

    /// The check whose failure this one was skipped for; nil when it ran.
    public var skippedBecause: Name? {
        if case .skipped(let cause) = outcome { cause } else { nil }
    }

    public var isWarning: Bool {
        if case .warned = outcome { true } else { false }
    }

    /// What was seen, without what to do.
    var finding: String {
        switch outcome {
        case .passed(let seen), .warned(let seen, _), .failed(let seen, _): seen
        case .skipped(let cause): "not checked, because \(cause.rawValue) failed"
        }
    }

    /// What was seen and, for a warning or a failure, what to do: one line of plain words.
    public var detail: String {
        switch outcome {
        case .passed, .skipped: finding
        case .warned(let seen, let fix), .failed(let seen, let fix): "\(seen) → \(fix)"
        }
    }
}
