import JSON
import PrintableText

/// A token request written as `METHOD /path?query [JSON body]` with placeholders such as `{channel}`, each value
/// escaped for where it stands. Grammar and rules: `Docs/token-requests.md`.
public struct RequestTemplate: Sendable, Equatable, CustomStringConvertible {
    public enum Method: String, Sendable, CaseIterable {
        case get = "GET", post = "POST", put = "PUT"
    }

    /// What a placeholder stands for.
    public enum Placeholder: Sendable, Equatable {
        case channel, uid, account, user, userType, role, roleName, expire
        /// `{role:WORD|WORD}`: the first word for a publisher, the second for a subscriber.
        case roleWords(publisher: String, subscriber: String)

        /// Every placeholder a template may write by name, with what it stands for, as help and errors list them.
        public static let named: [(name: String, placeholder: Placeholder, value: String)] = [
            ("channel", .channel, "the channel"),
            ("uid", .uid, "the integer uid"),
            ("account", .account, "the user account"),
            ("user", .user, "the uid or the account"),
            ("userType", .userType, "uid or userAccount"),
            ("role", .role, "1 (publisher) or 2 (subscriber)"),
            ("roleName", .roleName, "publisher or subscriber"),
            ("expire", .expire, "the lifetime asked for"),
        ]

        /// Whether its value is a number, so it may stand outside quotes in a JSON body.
        var isNumber: Bool { [.uid, .role, .expire].contains(self) }
    }

    /// The values a template is filled with.
    public struct Values: Sendable, Equatable {
        public enum User: Sendable, Equatable {
            case uid(UInt32)
            case account(String)
        }

        public var channel: String
        public var user: User
        public var publisher: Bool
        /// The token lifetime asked for, in seconds.
        public var expire: UInt32

        public init(channel: String, user: User, publisher: Bool, expire: UInt32) {
            self.channel = channel
            self.user = user
            self.publisher = publisher
            self.expire = expire
        }
    }

    /// A template's request for some values: the method, the path and query as sent, the body's bytes.
    public struct Filled: Sendable, Equatable {
        public let method: Method
        /// The percent-encoded path, starting with `/`.
        public let path: String
        /// The form-encoded query, without its `?`, when the template has one.
        public let query: String?
        public let body: [UInt8]?
    }

    /// Why a template cannot be used, in words that say what to write instead.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    enum Piece: Sendable, Equatable {
        case text(String)
        case value(Placeholder)
        /// In a JSON body, inside a string (`quoted`) or standing for a number.
        case bodyValue(Placeholder, quoted: Bool)
    }

    /// Templates longer than this are refused (a template is typed or pasted, never generated).
    public static let lengthLimit = 2048

    public let method: Method
    let path: [Piece]
    let query: [Piece]?
    let body: [Piece]?
    public let description: String
    /// The template as tokencall shows and writes it: the method and the path, without the query and the body, which
    /// may hold a credential (`GET /token?api_key=…` is `GET /token`).
    public let shown: String

    /// Every placeholder the template uses.
    public var placeholders: [Placeholder] {
        (path + (query ?? []) + (body ?? [])).compactMap {
            switch $0 {
            case .text: nil
            case .value(let placeholder), .bodyValue(let placeholder, _): placeholder
            }
        }
    }

    /// Reads `METHOD /path[?query] [body]`; the body only with POST or PUT, and only JSON.
    public init(parsing text: String) throws(Problem) {
        guard text.utf8.count <= Self.lengthLimit else { throw Problem("the template is \(text.utf8.count) bytes; at most \(Self.lengthLimit)") }
        let trimmed = text.drop { $0 == " " || $0 == "\t" }
        let methodWord = trimmed.prefix { $0 != " " && $0 != "\t" }
        guard let method = Method(rawValue: methodWord.uppercased()) else {
            throw Problem("a template starts with GET, POST or PUT, not \"\(methodWord.prefix(20))\"")
        }
        let afterMethod = trimmed.dropFirst(methodWord.count).drop { $0 == " " || $0 == "\t" }
        let target = afterMethod.prefix { $0 != " " && $0 != "\t" }
        let bodyText = afterMethod.dropFirst(target.count).drop { $0 == " " || $0 == "\t" }
        guard target.first == "/" else {
            if target.utf8.firstRange(of: "://".utf8) != nil {
                throw Problem("the template names a whole URL; write only its path (/token...): requests, and the bearer credential, "
                    + "go only to --token-url's server")
            }
            throw Problem(target.isEmpty ? "the template has no path after \(method.rawValue); write one such as /token"
                : "the template's path must start with /, not \"\(target.prefix(20))\"")
        }
        if target.hasPrefix("//") {
            throw Problem("the template's path starts with //, which names another server; requests go only to --token-url's server")
        }
        let pathText = target.prefix { $0 != "?" }
        self.method = method
        shown = "\(method.rawValue) \(String(target).urlWithoutCredentials)"
        path = try Self.urlPieces(pathText, part: "path")
        query = pathText.count < target.count ? try Self.urlPieces(target.dropFirst(pathText.count + 1), part: "query") : nil
        var trimmedBody = bodyText
        while let last = trimmedBody.last, last == " " || last == "\t" { trimmedBody.removeLast() }
        description = text
        guard !trimmedBody.isEmpty else {
            body = nil
            return
        }
        guard method != .get else { throw Problem("a GET request has no body; use POST, or put the values in the query") }
        let body = try Self.bodyPieces(trimmedBody)
        self.body = body
        do throws(JSONError) {
            _ = try JSONValue.decode(Array(Self.fill(body, Values(channel: "c", user: .uid(1), publisher: true, expire: 1), at: .body).utf8))
        } catch {
            throw Problem("the body is not JSON (\(error.problem)); write a JSON object such as {\"channelName\":\"{channel}\"}")
        }
    }

    /// The request for `values`: placeholders percent-encoded in the path (a `/` stays inside its segment),
    /// form-encoded in the query, JSON-escaped in the body.
    public func filled(with values: Values) throws(Problem) -> Filled {
        for placeholder in placeholders {
            switch (placeholder, values.user) {
            case (.uid, .account):
                throw Problem("the request sends {uid}, a number, but this join uses a user account; use {user} or {account} in a template, or --token-request getToken")
            case (.account, .uid):
                throw Problem("the request sends {account}, but this join uses an integer uid; use {user} or {uid} in a template, or --token-request getToken")
            default: break
            }
        }
        return Filled(method: method, path: Self.fill(path, values, at: .path), query: query.map { Self.fill($0, values, at: .query) },
                      body: body.map { Array(Self.fill($0, values, at: .body).utf8) })
    }

    // MARK: Reading

    /// Literal URL text and `{placeholder}`s; the literal text must already be valid in a URL.
    private static func urlPieces(_ text: Substring, part: String) throws(Problem) -> [Piece] {
        var pieces: [Piece] = []
        var literal = ""
        var rest = text[...]
        while let character = rest.first {
            switch character {
            case "{":
                guard let close = rest.firstIndex(of: "}") else { throw Problem("the \(part) has a { without its }") }
                let name = rest[rest.index(after: rest.startIndex)..<close]
                if name.utf8.contains(UInt8(ascii: "{")) { throw Problem("the \(part) has a { without its }") }
                if !literal.isEmpty { pieces.append(.text(literal)) }
                literal = ""
                pieces.append(.value(try placeholder(name)))
                rest = rest[rest.index(after: close)...]
                continue
            case "}":
                throw Problem("the \(part) has a } without its {")
            case "#":
                throw Problem("the template has a #fragment, which is never sent; remove it")
            case "%":
                let digits = rest.dropFirst().prefix(2)
                guard digits.count == 2, digits.allSatisfy(\.isHexDigit) else {
                    throw Problem("the \(part) has a % not followed by two hex digits; write %25 for a percent sign")
                }
            default:
                guard character.isASCII, let ascii = character.asciiValue, urlLiteral.contains(ascii) else {
                    throw Problem("the \(part) has \(shown(character)), which a URL cannot hold as it is; percent-encode it")
                }
            }
            literal.append(character)
            rest = rest.dropFirst()
        }
        if !literal.isEmpty { pieces.append(.text(literal)) }
        return pieces
    }

    /// JSON text with `{placeholder}`s, each inside a string or standing for a number. A `{` followed by a letter
    /// starts a placeholder; any other `{` is JSON's.
    private static func bodyPieces(_ text: Substring) throws(Problem) -> [Piece] {
        var pieces: [Piece] = []
        var literal = ""
        var inString = false
        var rest = text
        while let character = rest.first {
            if character == "{", let next = rest.dropFirst().first, next.isASCII, next.isLetter {
                guard let close = rest.firstIndex(of: "}") else { throw Problem("the body has a { without its }") }
                let placeholder = try placeholder(rest[rest.index(after: rest.startIndex)..<close])
                let name = rest[rest.startIndex...close]
                if !inString {
                    guard placeholder.isNumber else {
                        throw Problem("the body has \(name) outside quotes, where only a number may stand; write \"\(name)\"")
                    }
                    // A number must be a whole JSON value: `1{uid}` or `{expire}.5` would not be one for every value.
                    let before: UInt8 = (pieces.isEmpty && literal.isEmpty) ? 0x20 : literal.last?.asciiValue ?? 0
                    let after = rest[rest.index(after: close)...].first.map { $0.asciiValue ?? 0 } ?? 0x20
                    guard Array(" \t\r\n:,[".utf8).contains(before), Array(" \t\r\n,]}".utf8).contains(after) else {
                        throw Problem("the body has \(name) joined to other text; outside quotes it must stand alone as a value, such as \"e\":\(name)")
                    }
                }
                if !literal.isEmpty { pieces.append(.text(literal)) }
                literal = ""
                pieces.append(.bodyValue(placeholder, quoted: inString))
                rest = rest[rest.index(after: close)...]
                continue
            }
            if character == "\"" {
                inString.toggle()
            } else if character == "\\", inString, let escaped = rest.dropFirst().first {
                literal.append(character)
                literal.append(escaped)
                rest = rest.dropFirst(2)
                continue
            }
            literal.append(character)
            rest = rest.dropFirst()
        }
        if !literal.isEmpty { pieces.append(.text(literal)) }
        return pieces
    }

    private static func placeholder(_ name: Substring) throws(Problem) -> Placeholder {
        if let found = Placeholder.named.first(where: { $0.name == name }) { return found.placeholder }
        let words = name.split(separator: ":", maxSplits: 1)
        if words.first == "role", words.count == 2 {
            let choices = words[1].split(separator: "|", omittingEmptySubsequences: false)
            guard choices.count == 2, choices.allSatisfy({ !$0.isEmpty && $0.count <= 32 && $0.allSatisfy(isWordCharacter) }) else {
                throw Problem("{\(name.prefix(40))} must be {role:PUBLISHER|SUBSCRIBER}: two words of letters, digits, - or _, such as {role:publisher|audience}")
            }
            return .roleWords(publisher: String(choices[0]), subscriber: String(choices[1]))
        }
        throw Problem("unknown placeholder {\(name.prefix(40).map(shown).joined())}; the placeholders are "
            + Placeholder.named.map { "{\($0.name)}" }.joined(separator: " ") + " and {role:WORD|WORD}")
    }

    private static func isWordCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "-" || character == "_")
    }

    /// Characters a template may write as they are in a path or query: RFC 3986's unreserved and sub-delims,
    /// `:` `@` `/` `?`, and `%` (checked to start an escape).
    private static let urlLiteral = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?%".utf8)

    /// A character as it can be shown: printable ASCII as it is, anything else as its scalars, `U+000D U+000A`.
    private static func shown(_ character: Character) -> String {
        character.unicodeScalars.map(shown).joined(separator: " ")
    }

    private static func shown(_ scalar: Unicode.Scalar) -> String {
        guard !(" "..."~").contains(scalar) else { return String(scalar) }
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    // MARK: Filling

    private enum Position { case path, query, body }

    /// `position` is where the pieces stand; in a body each piece says whether it is quoted.
    private static func fill(_ pieces: [Piece], _ values: Values, at position: Position) -> String {
        var out = ""
        for piece in pieces {
            switch piece {
            case .text(let text): out += text
            case .value(let placeholder):
                let text = word(placeholder, values)
                out += position == .path ? percentEncoded(text, spaceAsPlus: false, dots: true) : percentEncoded(text, spaceAsPlus: true, dots: false)
            case .bodyValue(let placeholder, let quoted):
                out += quoted ? jsonEscaped(word(placeholder, values)) : word(placeholder, values)
            }
        }
        return out
    }

    /// A placeholder's value as text, before escaping.
    private static func word(_ placeholder: Placeholder, _ values: Values) -> String {
        switch placeholder {
        case .channel: values.channel
        case .uid, .account, .user:
            switch values.user {
            case .uid(let uid): String(uid)
            case .account(let account): account
            }
        case .userType: if case .account = values.user { "userAccount" } else { "uid" }
        case .role: values.publisher ? "1" : "2"
        case .roleName: values.publisher ? "publisher" : "subscriber"
        case .roleWords(let publisher, let subscriber): values.publisher ? publisher : subscriber
        case .expire: String(values.expire)
        }
    }

    /// Every byte but RFC 3986's unreserved as `%XX`; in a query a space as `+` (form encoding); in a path also
    /// the dots, so a value `..` cannot climb out of its segment.
    static func percentEncoded(_ text: String, spaceAsPlus: Bool, dots: Bool) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: ".") where !dots:
                out.append(byte)
            case UInt8(ascii: " ") where spaceAsPlus:
                out.append(UInt8(ascii: "+"))
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The content of a JSON string holding `text`: `"` and `\` escaped, control characters as `\u00XX`.
    static func jsonEscaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar == "\"" || scalar == "\\" {
                out += "\\" + String(scalar)
            } else if scalar.value < 0x20 {
                out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
