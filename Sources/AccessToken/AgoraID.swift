/// Checks on the identifiers Agora issues and the names it accepts.
public enum AgoraID {
    /// True when `text` is 32 hex characters, the shape of an App ID and an App Certificate.
    public static func isValid(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { $0.count == 32 && $0.allSatisfy(\.isHexDigit) }
    }

    /// Throws unless `name` is a channel name Agora accepts: 1 to 63 bytes from its 89 characters.
    public static func validateChannelName(_ name: String) throws(TokenError) {
        if name.isEmpty { throw .invalidChannelName("it is empty") }
        if name.utf8.count >= 64 { throw .invalidChannelName("it is \(name.utf8.count) bytes; Agora allows 63 at most") }
        if let bad = name.unicodeScalars.first(where: { !isNameCharacter($0) }) {
            throw .invalidChannelName("\"\(bad.escaped(asASCII: true))\" is not allowed; use a-z A-Z 0-9 space and !#$%&()+-:;<=.>?@[]^_{}|~,")
        }
    }

    /// Throws unless `account` is a user account Agora accepts: 1 to 255 bytes from the same characters.
    public static func validateAccount(_ account: String) throws(TokenError) {
        if account.isEmpty { throw .invalidAccount("it is empty") }
        if account.utf8.count > 255 { throw .invalidAccount("it is \(account.utf8.count) bytes; Agora allows 255 at most") }
        if let bad = account.unicodeScalars.first(where: { !isNameCharacter($0) }) {
            throw .invalidAccount("\"\(bad.escaped(asASCII: true))\" is not allowed; use a-z A-Z 0-9 space and !#$%&()+-:;<=.>?@[]^_{}|~,")
        }
    }

    private static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return false }
        let c = UInt8(scalar.value)
        return (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z"))
            || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z")) || punctuation.contains(c)
    }

    private static let punctuation = Set(" !#$%&()+-:;<=.>?@[]^_{}|~,".utf8)
}

extension UInt8 {
    var isHexDigit: Bool {
        (self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9"))
            || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "F"))
    }
}
