// Text from outside (a token's fields, a server's answer, a command line) made safe to print on a terminal.

extension Unicode.Scalar {
    /// Whether printing this scalar raw could act on a terminal or hide in what it shows: C0 and C1 controls and
    /// DEL (an escape sequence, a carriage return), format characters (bidi overrides and isolates, zero-width
    /// characters) and the line and paragraph separators, which some viewers break lines at.
    public var isUnsafeToPrint: Bool {
        switch properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    /// The scalar as JSON writes it escaped: `\u001b`, or a surrogate pair such as `\udb40\udc01` beyond U+FFFF.
    public var jsonEscaped: String {
        String(self).utf16.map { unit in
            let digits = String(unit, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
        }.joined()
    }
}

extension String {
    /// The text with every scalar that is unsafe to print written as its JSON escape (`\u001b`, `\u000a`): it reaches
    /// the terminal as visible characters on the same line. Inside a JSON string the escape reads back as the scalar.
    public var escapedForPrinting: String {
        guard unicodeScalars.contains(where: \.isUnsafeToPrint) else { return self }
        var out = ""
        for scalar in unicodeScalars {
            if scalar.isUnsafeToPrint { out += scalar.jsonEscaped } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// The text as a JSON string, quotes included: `"`, `\\`, newline, return and tab as their short escapes, every
    /// other scalar that is unsafe to print as `\u001b`; so the string prints on one line and reads back as the text.
    public var jsonQuoted: String {
        var out = "\""
        for scalar in unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.isUnsafeToPrint: out += scalar.jsonEscaped
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

extension String {
    /// The URL as tokencall shows and writes it: without the user and password, the query and the fragment, where
    /// credentials travel (`http://alice:pw@host:8080/token?api_key=…` is `http://host:8080/token`). Text without
    /// `://` before its first `/`, `?` or `#`, such as a path, loses its query and fragment.
    public var urlWithoutCredentials: String {
        var rest = Substring(self)
        var start = ""
        if let separator = rest.firstRange(of: "://"), !rest[..<separator.lowerBound].contains(where: { "/?#".contains($0) }) {
            start = String(rest[..<separator.upperBound])
            rest = rest[separator.upperBound...]
            let authority = rest.prefix { !"/?#".contains($0) }
            if let at = authority.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        }
        return start + rest.prefix { $0 != "?" && $0 != "#" }
    }
}
