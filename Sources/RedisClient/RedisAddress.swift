import PrintableText

/// Where a Redis server listens: `redis://HOST:PORT[/DB]`, optionally with `:PASSWORD@` (sent with AUTH, never shown).
public struct RedisAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: UInt16
    public let database: Int
    let password: String?

    public static let defaultPort: UInt16 = 6379

    public init(parsing text: String) throws(RedisError) {
        func refuse(_ why: String) -> RedisError {
            RedisError(description: "Redis address \(Self.shown(text).jsonQuoted): \(why); the form is redis://HOST:PORT[/DB]")
        }
        guard text.lowercased().hasPrefix("redis://") else { throw refuse("it must start with redis://") }
        var rest = Substring(text.dropFirst("redis://".count))
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let user = rest[..<at]
            guard let colon = user.firstIndex(of: ":") else { throw refuse("give the password as :PASSWORD@, without a user") }
            password = String(user[user.index(after: colon)...])
            rest = rest[rest.index(after: at)...]
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        var database = 0
        if slash < rest.endIndex {
            let digits = rest[rest.index(after: slash)...]
            guard let number = Int(digits), (0...15).contains(number) else { throw refuse("the database is a number 0...15") }
            database = number
        }
        let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let host = parts.first, !host.isEmpty,
              host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") }) else {
            throw refuse("the host is missing or not a host name or IPv4 address")
        }
        var port = Self.defaultPort
        if parts.count == 2 {
            guard let number = UInt16(parts[1]), number > 0 else { throw refuse("the port must be a number 1...65535") }
            port = number
        }
        (self.host, self.port, self.database, self.password) = (String(host), port, database, password)
    }

    /// `text` as an error shows it: without what comes before its last `@`, as the parser reads it (a password may
    /// hold `/`, `?` or `#`, which end a URL's authority).
    private static func shown(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return text.urlWithoutCredentials }
        let scheme = text.firstRange(of: "://").flatMap { $0.upperBound <= at ? text[..<$0.upperBound] : nil } ?? ""
        return String(scheme + text[text.index(after: at)...]).urlWithoutCredentials
    }

    /// `text` (a server's words) with the password, wherever it is quoted, replaced; the arguments a server quotes of
    /// a command it does not know are left out, since it cuts them at 128 bytes and a long password's beginning would
    /// show.
    func hidingPassword(in text: String) -> String {
        guard let password, !password.isEmpty else { return text }
        var text = text
        if let quoted = text.firstRange(of: "with args beginning with:") { text = text[..<quoted.upperBound] + " (not shown)" }
        return text.replacing(password, with: "(the password)")
    }

    /// The address without its password.
    public var description: String { "redis://\(host):\(port)" + (database == 0 ? "" : "/\(database)") }
}
