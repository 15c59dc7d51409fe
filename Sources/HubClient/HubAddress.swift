import HubProtocol
import PrintableText

/// Why a hub address was refused, in a sentence that shows what was given (escaped) and the form to use.
public struct HubAddressError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
}

/// Where a hub listens: `ws://HOST:PORT/PATH[?QUERY]`, or `wss://` for the same over TLS (`Docs/hub-protocol.md`).
public struct HubAddress: Equatable, Sendable, CustomStringConvertible {
    /// A name, an IPv4 address, or an IPv6 address without its brackets.
    public let host: String
    public let port: UInt16
    /// The path and query the handshake asks for, such as `/hub?channel=standup`.
    public let target: String
    /// wss://: the connection is TLS, the hub's certificate checked.
    public let isSecure: Bool

    static let form = "ws://HOST:PORT/PATH or wss://HOST:PORT/PATH, such as ws://127.0.0.1:8082/hub"

    /// Reads an address as a person writes it; anything not of the form is refused. Without a port, ws:// is on 80
    /// and wss:// on 443.
    public init(parsing text: String) throws(HubAddressError) {
        func refuse(_ why: String) -> HubAddressError {
            HubAddressError(description: "hub address \(text.urlWithoutCredentials.jsonQuoted): \(why)")
        }
        let lower = text.lowercased()
        let isSecure = lower.hasPrefix("wss://")
        guard isSecure || lower.hasPrefix("ws://") else { throw refuse("a hub address is \(Self.form)") }
        let rest = text.dropFirst(isSecure ? "wss://".count : "ws://".count)
        guard let slash = rest.firstIndex(of: "/") else {
            throw refuse("the path is missing; add the hub's path, as in \(Self.form)")
        }
        let authority = rest[..<slash], target = String(rest[slash...])
        guard !authority.utf8.contains(UInt8(ascii: "@")) else { throw refuse("a hub address holds no user name or password") }
        guard target.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) && $0 != "#" }) else {
            throw refuse("the path may hold only visible ASCII, without spaces or a # fragment (percent-encode the rest)")
        }
        let hostPart: Substring, portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw refuse("an IPv6 address in [ ] lacks its ]") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw refuse("after ] comes :PORT or the path") }
            portPart = after.isEmpty ? nil : after.dropFirst()
            guard !hostPart.isEmpty, hostPart.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == ":" || $0 == ".") }) else {
                throw refuse("\(String(hostPart).jsonQuoted) is not an IPv6 address")
            }
        } else {
            let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            hostPart = parts[0]
            portPart = parts.count > 1 ? parts[1] : nil
            guard !hostPart.isEmpty else { throw refuse("the host is missing; \(Self.form)") }
            guard hostPart.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") }) else {
                throw refuse("\(String(hostPart).jsonQuoted) is not a host name or an IPv4 address")
            }
        }
        var port: UInt16 = isSecure ? 443 : 80
        if let portPart {
            guard portPart.count <= 5, portPart.allSatisfy({ $0.isASCII && $0.isNumber }), let number = UInt16(portPart), number > 0 else {
                throw refuse("the port must be a number 1...65535, not \(String(portPart).jsonQuoted)")
            }
            port = number
        }
        (host, self.port, self.target, self.isSecure) = (String(hostPart), port, target, isSecure)
    }

    static let routable = Set(HubRoute.characters.unicodeScalars)

    /// This address with `channel=NAME` added to its query, so a balancer routes by it; unchanged when the query names
    /// a channel already, or when the name holds a character a URL would have to escape.
    public func routed(to channel: String) -> HubAddress {
        let query = target.split(separator: "?", maxSplits: 1).dropFirst().first ?? ""
        guard !channel.isEmpty, channel.unicodeScalars.allSatisfy(Self.routable.contains),
              !query.split(separator: "&").contains(where: { $0 == "channel" || $0.hasPrefix("channel=") }) else { return self }
        let joined = target.utf8.contains(UInt8(ascii: "?")) ? (target.hasSuffix("?") || target.hasSuffix("&") ? "" : "&") : "?"
        return HubAddress(host: host, port: port, target: target + joined + "channel=" + channel, isSecure: isSecure)
    }

    /// The owner's scheme, host, port and path with this address's query: where a redirected client connects. Never
    /// from wss:// to ws://, where the token would cross the network unencrypted.
    public func redirected(to owner: HubAddress) throws(HubAddressError) -> HubAddress {
        guard owner.isSecure || !isSecure else {
            throw HubAddressError(description: "\(owner) is not followed: from a wss:// hub a redirect goes only to wss://, "
                                  + "or the token would cross the network unencrypted")
        }
        let path = owner.target.prefix { $0 != "?" }
        let query = target.firstIndex(of: "?").map { String(target[$0...]) } ?? ""
        return HubAddress(host: owner.host, port: owner.port, target: path + query, isSecure: owner.isSecure)
    }

    private init(host: String, port: UInt16, target: String, isSecure: Bool) {
        (self.host, self.port, self.target, self.isSecure) = (host, port, target, isSecure)
    }

    /// The `Host` header's value: the host (an IPv6 address in brackets) and the port.
    var hostHeader: String { (host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host) + ":\(port)" }

    public var description: String { "\(isSecure ? "wss" : "ws")://\(hostHeader)\(target)" }
}
