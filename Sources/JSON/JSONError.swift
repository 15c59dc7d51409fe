/// Why bytes are not one JSON text, and where.
public struct JSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The offset of the first byte that is wrong.
    public let offset: Int
    /// What is wrong there, in words.
    public let problem: String

    public var description: String { "\(problem) at byte \(offset)" }
}
