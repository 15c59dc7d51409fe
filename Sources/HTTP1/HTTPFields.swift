/// A message's header fields in the order they came, looked up by name in any case.
public struct HTTPFields: Sendable, Equatable, ExpressibleByArrayLiteral, Sequence {
    /// One field as it arrived or is to be sent, its value without the whitespace around it.
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }

        /// Whether it can be written as it is: its name a token, and no CR, LF or NUL in its value (which would end
        /// the field early and start one its writer did not mean).
        public var isSendable: Bool {
            Syntax.isToken(name) && !value.utf8.contains { $0 == Syntax.cr || $0 == Syntax.lf || $0 == 0 }
        }
    }

    public private(set) var list: [Field]

    public init(_ list: [Field] = []) { self.list = list }

    public init(arrayLiteral elements: (String, String)...) {
        list = elements.map { Field(name: $0.0, value: $0.1) }
    }

    public func makeIterator() -> IndexingIterator<[Field]> { list.makeIterator() }

    public var isEmpty: Bool { list.isEmpty }

    /// The first value of a field named `name`.
    public func first(_ name: String) -> String? {
        list.first { FieldName.equal($0.name, name) }?.value
    }

    /// Every value of the fields named `name`, in order.
    public func values(_ name: String) -> [String] {
        list.filter { FieldName.equal($0.name, name) }.map(\.value)
    }

    /// The values of the fields named `name` joined by ", ", as RFC 9110 §5.3 combines them; nil when there is none.
    public func value(_ name: String) -> String? {
        let all = values(name)
        return all.isEmpty ? nil : all.joined(separator: ", ")
    }

    public func contains(_ name: String) -> Bool { list.contains { FieldName.equal($0.name, name) } }

    public mutating func append(_ name: String, _ value: String) { list.append(Field(name: name, value: value)) }

    /// Replaces every field named `name` by one with `value` (where the first was, else at the end); nil removes them.
    public mutating func set(_ name: String, _ value: String?) {
        let at = list.firstIndex { FieldName.equal($0.name, name) }
        list.removeAll { FieldName.equal($0.name, name) }
        guard let value else { return }
        list.insert(Field(name: name, value: value), at: at ?? list.count)
    }

    /// The comma-separated options of every field named `name`, trimmed and lowercased (`Connection: keep-alive, Upgrade`).
    public func options(_ name: String) -> [String] {
        values(name).flatMap { $0.split(separator: ",") }.map { String(Syntax.trimmed(Substring($0))).asciiLowercased }.filter { !$0.isEmpty }
    }
}

/// Field names compare without regard to ASCII case; other bytes must be equal (a name is ASCII on the wire anyway).
public enum FieldName {
    public static func equal(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var (a, b) = (a, b)
        return a.withUTF8 { x in
            b.withUTF8 { y in
                guard x.count == y.count else { return false }
                for index in 0..<x.count where Syntax.lower(x[index]) != Syntax.lower(y[index]) { return false }
                return true
            }
        }
    }
}

extension String {
    /// The string with A to Z made lowercase and every other character kept.
    var asciiLowercased: String {
        String(decoding: utf8.map(Syntax.lower), as: UTF8.self)
    }
}
