extension TokenReport {
    /// Parses `text`; when it does not parse as given, tries the repairs for what transports do to
    /// tokens and reports them. Nil, with the reason in `problems`, when nothing reads.
    static func read(_ text: String, problems: inout [String]) -> (AgoraToken, repairs: [String])? {
        let error: TokenError
        do {
            return (try AgoraToken(parsing: text), [])
        } catch let failure {
            error = failure
        }
        var candidate = text
        var repairs: [String] = []
        let trimmed = candidate.trimmingSpaceAndQuotes()
        if trimmed != candidate {
            candidate = trimmed
            repairs.append("the token is wrapped in whitespace or quotes; pass the bare string to the SDK")
        }
        if candidate.contains("%"), let decoded = candidate.percentDecoded(), decoded != candidate {
            candidate = decoded
            repairs.append("the token is still URL-encoded (%2B, %2F, %3D); decode it once before use")
        }
        if candidate.contains(" ") {
            candidate = candidate.replacingAll(" ", with: "+")
            repairs.append("the token contains spaces where '+' belongs: something URL-decoded it (a '+' in a query string means a space); send it in a JSON body or encode it with percent-encoding")
        }
        if candidate.contains("-") || candidate.contains("_") {
            candidate = candidate.replacingAll("-", with: "+").replacingAll("_", with: "/")
            repairs.append("the token uses the URL-safe base64 alphabet ('-', '_'); Agora tokens use standard base64 ('+', '/')")
        }
        if !repairs.isEmpty, let token = try? AgoraToken(parsing: candidate) {
            return (token, repairs.map { $0 + " (inspected as repaired below)" })
        }
        problems.append("not a readable token: \(error)")
        if AgoraID.isValid(text.trimmingSpaceAndQuotes()) {
            problems.append("this is 32 hex characters: an App ID or an App Certificate, not a token; fetch a token from your token server")
        } else if text.hasPrefix("007") || text.hasPrefix("006") {
            problems.append("it starts like a \(text.prefix(3)) token, so it was most likely cut short or altered; copy it again whole")
        }
        return nil
    }
}

extension String {
    func trimmingSpaceAndQuotes() -> String {
        let junk: Set<Character> = [" ", "\t", "\n", "\r", "\"", "'"]
        guard let first = firstIndex(where: { !junk.contains($0) }),
              let last = lastIndex(where: { !junk.contains($0) }) else { return "" }
        return String(self[first...last])
    }

    func replacingAll(_ target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }

    /// The text with %XX escapes decoded, or nil when an escape is malformed.
    func percentDecoded() -> String? {
        var bytes: [UInt8] = []
        var utf8 = self.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = utf8.next().flatMap(Self.hexValue), let low = utf8.next().flatMap(Self.hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
