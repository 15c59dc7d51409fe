import PrintableText

/// A scenario file read into typed steps: one step a line, `#` comments and blank lines left out (`Docs/ci.md`).
public struct Scenario: Sendable, Equatable {
    /// The scenario's name: its file's name without `.scenario`, or a built-in's name.
    public let name: String
    public let steps: [ScenarioStep]

    /// Whether a step names B: the scenario has two people in one channel, so it runs on a hub.
    public var hasSecondParticipant: Bool { steps.contains { $0.participant == .b } }

    /// The most bytes a scenario file may hold.
    public static let byteLimit = 256 * 1024
    /// The most bytes one line may hold (a pasted token fits many times over).
    public static let lineLimit = 16 * 1024
    /// The longest a `wait` or a check may last: 7 days.
    public static let longestMilliseconds: Int64 = 7 * 86_400_000

    public init(name: String, steps: [ScenarioStep]) {
        self.name = name
        self.steps = steps
    }

    /// Reads `bytes`, a scenario file's text; every refusal names the line and says what is wrong (`file` is how the
    /// error names the file).
    public init(parsing bytes: [UInt8], name: String, file: String, vocabulary: ScenarioVocabulary) throws(ScenarioError) {
        self.name = name
        guard bytes.count <= Self.byteLimit else {
            throw ScenarioError(file: file, line: 1, "the file holds \(bytes.count) bytes, more than \(Self.byteLimit); split it")
        }
        var steps: [ScenarioStep] = []
        var number = 0
        for raw in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            var line = Array(raw)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            guard line.count <= Self.lineLimit else {
                throw ScenarioError(file: file, line: number, "the line holds \(line.count) bytes, more than \(Self.lineLimit)")
            }
            guard let text = String(validating: line, as: UTF8.self) else {
                throw ScenarioError(file: file, line: number, "the line is not UTF-8 text")
            }
            var reader = StepReader(vocabulary: vocabulary)
            do throws(StepReader.Refusal) {
                guard let action = try reader.read(text) else { continue }
                steps.append(ScenarioStep(line: number, text: reader.source, participant: reader.participant, action: action))
            } catch {
                throw ScenarioError(file: file, line: number, error.words)
            }
        }
        self.steps = steps
    }
}

/// One line of a scenario: where it stands, what it says (without its comment), whose call it acts on or checks, and
/// what it asks.
public struct ScenarioStep: Sendable, Equatable {
    public let line: Int
    public let text: String
    public let participant: ScenarioParticipant
    public let action: ScenarioAction

    public init(line: Int, text: String, participant: ScenarioParticipant = .a, action: ScenarioAction) {
        self.line = line
        self.text = text
        self.participant = participant
        self.action = action
    }
}

/// Whose call a step is on: A's (a step without a prefix, or `A:`) or B's (`B:`), two people in one hub channel.
public enum ScenarioParticipant: String, Sendable, CaseIterable, Hashable {
    case a = "A", b = "B"
}

/// What a step asks: an action on the call, or a check of what it did.
public enum ScenarioAction: Sendable, Equatable {
    case join, leave, rejoin, renew
    case method(ScenarioRenewMethod)
    case autoRenew(Bool)
    case role(ScenarioRole)
    /// Before the first `join`: the call joins as this string user account.
    case account(String)
    /// The network expires the token in use now.
    case expire
    case network(up: Bool)
    case server(running: Bool)
    /// The embedded server's mistake from now on (nil: none).
    case misconfigure(String?)
    case paste(String)
    /// Brings the simulated remote users to this many.
    case users(Int)
    case wait(Duration)
    case expect(EventMatch, within: Duration)
    case expectNo(EventMatch, for: Duration)
    case expectState(String)
    /// Requests the token server answered so far.
    case expectFetches(Int)
}

public enum ScenarioRenewMethod: String, Sendable, CaseIterable {
    case renew, update, rejoin
}

public enum ScenarioRole: String, Sendable, CaseIterable {
    case audience, broadcaster
}

/// An event by its `--json` name, with the fields it must have (each compared with the field as `--json` writes it,
/// text without its quotes).
public struct EventMatch: Sendable, Equatable, CustomStringConvertible {
    public let event: String
    public let fields: [Field]

    public struct Field: Sendable, Equatable {
        public let name: String
        public let value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(event: String, fields: [Field]) {
        self.event = event
        self.fields = fields
    }

    public var description: String {
        ([event] + fields.map { "\($0.name)=\($0.value.escapedForPrinting)" }).joined(separator: " ")
    }
}

/// The words a scenario may name, which its reader checks each one against: events and their fields, connection
/// states, the embedded server's mistakes, and how many remote users there can be.
public struct ScenarioVocabulary: Sendable {
    public var events: [String: [String]]
    public var states: [String]
    public var mistakes: [String]
    public var userLimit: Int
    /// Events by the names other SDKs give them (`onTokenPrivilegeWillExpire`, `token-privilege-will-expire`), each to
    /// the name `events` knows it by.
    public var aliases: [String: String]

    public init(events: [String: [String]], states: [String], mistakes: [String], userLimit: Int, aliases: [String: String] = [:]) {
        self.events = events
        self.states = states
        self.mistakes = mistakes
        self.userLimit = userLimit
        self.aliases = aliases
    }
}

/// A scenario that does not read: `file:line: what is wrong`.
public struct ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
    public let file: String
    public let line: Int
    public let message: String

    public init(file: String, line: Int, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { "\(file.escapedForPrinting):\(line): \(message)" }
}
