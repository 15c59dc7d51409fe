import JSON

/// Where an answer holds a value: member names joined by dots (`data.token`); a segment of digits also picks an
/// array's element (`tokens.0`); `.` alone is the whole answer.
public struct FieldPath: Sendable, Equatable, CustomStringConvertible {
    /// Why a path cannot be read.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Paths deeper or longer than these are refused.
    public static let depthLimit = 8
    public static let lengthLimit = 200

    /// The member names and indices from the top; none for the whole answer.
    public let segments: [String]
    public var description: String { isWhole ? "." : segments.joined(separator: ".") }
    /// Whether this is `.`, the whole answer.
    public var isWhole: Bool { segments.isEmpty }

    /// Reads `a.b.0`: 1–8 segments, none empty, of printable ASCII; or `.`.
    public init(parsing text: String) throws(Problem) {
        guard !text.isEmpty else { throw Problem(description: "the field path is empty; write a member name such as token or data.token") }
        if text == "." {
            segments = []
            return
        }
        guard text.utf8.count <= Self.lengthLimit else {
            throw Problem(description: "the field path is \(text.utf8.count) bytes; at most \(Self.lengthLimit)")
        }
        guard text.unicodeScalars.allSatisfy({ ("!"..."~").contains($0) }) else {
            throw Problem(description: "the field path may hold only printable ASCII without spaces, such as data.token")
        }
        let segments = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !segments.contains(where: \.isEmpty) else {
            throw Problem(description: "the field path \"\(text)\" has an empty segment; write names joined by single dots, such as data.token")
        }
        guard segments.count <= Self.depthLimit else {
            throw Problem(description: "the field path has \(segments.count) segments; at most \(Self.depthLimit)")
        }
        self.segments = segments.map(String.init)
    }

    /// The value at this path in `value`, or where the path stops finding one.
    public func value(in value: JSONValue) -> Result<JSONValue, Problem> {
        var current = value
        for (depth, segment) in segments.enumerated() {
            let parent = depth == 0 ? "the answer" : segments[..<depth].joined(separator: ".")
            switch current {
            case .object(let members):
                guard let next = members[segment] else { return .failure(Problem(description: "\(parent) has no \"\(segment)\" member")) }
                current = next
            case .array(let elements):
                guard let index = Int(segment), segment.utf8.allSatisfy({ (48...57).contains($0) }), elements.indices.contains(index) else {
                    return .failure(Problem(description: "\(parent) is an array of \(elements.count) and has no element \(segment)"))
                }
                current = elements[index]
            default:
                return .failure(Problem(description: "\(parent) is \(current.kind), not an object with \"\(segment)\""))
            }
        }
        return .success(current)
    }
}
