/// Any JSON value, read without guessing at types, so each field can be checked and explained.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// A number written as a whole number that fits an `Int64`: no fraction, no exponent, not `-0`.
    case integer(Int64)
    /// Any other number, exactly as written (`1e3`, `0.0`, `-0`, `18446744073709551616`): never rounded.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// What kind of value this is, for error messages.
    public var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The members of an object; nil for anything else.
    public var object: [String: JSONValue]? {
        if case .object(let members) = self { members } else { nil }
    }

    /// The text of a string; nil for anything else.
    public var string: String? {
        if case .string(let text) = self { text } else { nil }
    }
}

extension JSONValue {
    /// The value `bytes` hold when they are exactly one JSON text (RFC 8259); nil when they are not.
    public static func parse(_ bytes: some Collection<UInt8>) -> JSONValue? {
        try? decode(bytes)
    }

    /// The value `bytes` hold when they are exactly one JSON text (RFC 8259), or what is wrong with them.
    public static func decode(_ bytes: some Collection<UInt8>) throws(JSONError) -> JSONValue {
        let result = bytes.withContiguousStorageIfAvailable { buffer in Result { () throws(JSONError) in try JSONParser.parse(buffer) } }
            ?? Array(bytes).withUnsafeBufferPointer { buffer in Result { () throws(JSONError) in try JSONParser.parse(buffer) } }
        return try result.get()
    }
}
