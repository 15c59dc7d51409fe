/// The channel a connection's URL names (`/hub?channel=NAME`), read exactly as a balancer in front reads it: the
/// first `channel` parameter, its bytes as sent. So that the two can never disagree, a URL that a balancer and a
/// decoding reader would read differently is refused.
enum ChannelRoute {
    /// The channel named by a request target, nil when it names none; a refusal in words when it is ambiguous.
    static func read(target: String) -> Result<String?, RouteRefusal> {
        guard let question = target.firstIndex(of: "?") else { return .success(nil) }
        var found: [Substring] = []
        for pair in target[target.index(after: question)...].split(separator: "&", omittingEmptySubsequences: true) {
            let name = pair.prefix { $0 != "=" }
            let value = pair.dropFirst(name.count + 1)
            if name == "channel" {
                found.append(value)
            } else if decodes(name, to: "channel") {
                return .failure(RouteRefusal(message: "the parameter name \(String(name).debugDescription) is an escaped \"channel\"; "
                                             + "write it as channel, as a balancer routing by channel reads it"))
            }
        }
        guard let value = found.first else { return .success(nil) }
        if found.count > 1 {
            return .failure(RouteRefusal(message: "the URL names channel \(found.count) times; a balancer routes by the first and a "
                                         + "join could name another: give ?channel= once"))
        }
        if value.utf8.contains(where: Self.isEscape) {
            return .failure(RouteRefusal(message: "the channel parameter is percent-encoded (or holds +); a balancer hashes it as sent: "
                                         + "give the name as it is (letters, digits and -._~!$(),;:@), or connect without ?channel="))
        }
        if value.isEmpty { return .failure(RouteRefusal(message: "the channel parameter is empty; give ?channel=NAME or leave it out")) }
        return .success(String(value))
    }

    /// Whether a parameter name written with escapes or `+` means `name`.
    private static func decodes(_ raw: Substring, to name: String) -> Bool {
        guard raw.utf8.contains(where: Self.isEscape) else { return false }
        var bytes: [UInt8] = [], input = Array(raw.utf8)[...]
        while let byte = input.popFirst() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard input.count >= 2, let high = hex(input.removeFirst()), let low = hex(input.removeFirst()) else { return false }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return bytes == Array(name.utf8)
    }

    /// `%` or `+`: a byte a decoding reader would read as another.
    private static func isEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "%") || byte == UInt8(ascii: "+")
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Why a hub URL's channel parameter was refused.
struct RouteRefusal: Error, Equatable {
    let message: String
}
