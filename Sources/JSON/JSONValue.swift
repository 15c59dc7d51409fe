import Foundation

/// Any JSON value, decoded without guessing at types, so each field can be checked and explained.
public enum JSONValue: Decodable, Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

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
}

extension JSONValue {
    /// The value of `data` when it is JSON; nil when it is not.
    public static func parse(_ data: some DataProtocol) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(data))
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
