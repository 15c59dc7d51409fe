/// One thing `tokencall doctor` checks about a token server, and how it went.
public struct Check: Sendable, Equatable {
    /// The checks, in the order they are printed.
    public enum Name: String, Sendable, CaseIterable {
        case reachable, latency, ping, answer, token, audience, signature, renewal, lifetime, clock, stampede
        case badInput = "bad-input"
        case cors
    }

    /// Passed, with what was seen; or failed, with what was seen and what to do about it.
    public enum Outcome: Sendable, Equatable {
        case passed(String)
        case failed(String, fix: String)
    }

    public let name: Name
    public let outcome: Outcome

    public init(_ name: Name, _ outcome: Outcome) {
        self.name = name
        self.outcome = outcome
    }

    static func passed(_ name: Name, _ detail: String) -> Check { Check(name, .passed(detail)) }
    static func failed(_ name: Name, _ detail: String, fix: String) -> Check { Check(name, .failed(detail, fix: fix)) }

    public var ok: Bool {
        if case .passed = outcome { true } else { false }
    }

    /// What was seen, without what to do.
    var finding: String {
        switch outcome {
        case .passed(let seen), .failed(let seen, _): seen
        }
    }

    /// What was seen and, for a failure, what to do: one line of plain words.
    public var detail: String {
        switch outcome {
        case .passed(let seen): seen
        case .failed(let seen, let fix): "\(seen) → \(fix)"
        }
    }
}
