import AgoraVocabulary
import JSON

/// A message's members, read with errors that name the field; members it does not ask for are ignored.
struct Fields {
    let members: [String: JSONValue]
    init(_ members: [String: JSONValue]) { self.members = members }

    /// The members of the one JSON object `text` holds; `what` names the message in the error ("a request").
    init(json text: String, of what: String) throws(HubProtocolError) {
        let value: JSONValue
        do { value = try JSONValue.decode(Array(text.utf8)) } catch {
            throw HubProtocolError("not JSON (\(error)); send one JSON object per text message")
        }
        guard let members = value.object else { throw HubProtocolError("\(what) is a JSON object, not \(value.kind)") }
        self.init(members)
    }

    func string(_ name: String) throws(HubProtocolError) -> String {
        guard let value = members[name] else { throw HubProtocolError("\(name) is missing") }
        guard let text = value.string else { throw HubProtocolError("\(name) must be a string, not \(value.kind)") }
        return text
    }

    func optionalString(_ name: String) throws(HubProtocolError) -> String? {
        members[name] == nil || members[name] == .null ? nil : try string(name)
    }

    func role(_ name: String = "role") throws(HubProtocolError) -> AgoraClientRole? {
        guard let text = try optionalString(name) else { return nil }
        guard let role = AgoraClientRole(name: text) else { throw HubProtocolError("\(name) must be broadcaster or audience") }
        return role
    }

    func requiredRole(_ name: String) throws(HubProtocolError) -> AgoraClientRole {
        guard let role = try role(name) else { throw HubProtocolError("\(name) is missing") }
        return role
    }

    /// A whole number within `range`, checked before it is converted.
    func integer(_ name: String, in range: ClosedRange<Int64>) throws(HubProtocolError) -> Int64 {
        guard let value = members[name] else { throw HubProtocolError("\(name) is missing") }
        guard case .integer(let number) = value, range.contains(number) else {
            let given = switch value {
            case .integer(let number): String(number)
            case .number(let text): String(text.prefix(40))
            default: value.kind
            }
            throw HubProtocolError("\(name) must be a whole number \(range.lowerBound)...\(range.upperBound), not \(given)")
        }
        return number
    }

    func uid(_ name: String) throws(HubProtocolError) -> UInt32 {
        UInt32(try integer(name, in: 0...Int64(UInt32.max)))
    }
}
