/// Why a Redis exchange failed, in words (never with the password).
public struct RedisError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}
