/// The names a server answers to, and a request's `Host` (`host[:port]`, RFC 9110 §7.2) judged against them: any IP
/// address is the server's own (DNS rebinding needs a name); a name must be one of these, in any case, with or without
/// a trailing dot (`*.example.com` covers one label more). The port is not looked at: a balancer in front answers on
/// another. Judging allocates nothing.
public struct HostNames: Sendable {
    /// Lowercase, without a trailing dot.
    private let names: [[UInt8]]
    /// `*.example.com` as `.example.com`.
    private let suffixes: [[UInt8]]

    public init(_ given: [String]) {
        var names: [[UInt8]] = [], suffixes: [[UInt8]] = []
        for name in given {
            var bytes = name.utf8.map(Syntax.lower)
            if bytes.last == dot { bytes.removeLast() }
            if bytes.starts(with: "*.".utf8) { suffixes.append(Array(bytes.dropFirst())) } else if !bytes.isEmpty { names.append(bytes) }
        }
        self.names = names
        self.suffixes = suffixes
    }

    public enum Judgement: Sendable, Equatable {
        /// An IP address, or one of the names.
        case own
        /// A name that is none of them.
        case other
        /// Not `host[:port]`.
        case malformed
    }

    public func judge(_ host: String) -> Judgement {
        var host = host
        return host.withUTF8(judge)
    }

    func judge(_ host: UnsafeBufferPointer<UInt8>) -> Judgement {
        guard let first = host.first else { return .malformed }
        if first == UInt8(ascii: "[") {
            guard let close = host.firstIndex(of: UInt8(ascii: "]")), close > 1,
                  host[1..<close].allSatisfy({ Syntax.hexValue($0) != nil || $0 == Syntax.colon || $0 == dot }),
                  Self.isPort(host[(close + 1)...]) else { return .malformed }
            return .own
        }
        var end = host.count
        if let colon = host.lastIndex(of: Syntax.colon) {
            guard Self.isPort(host[colon...]) else { return .malformed }
            end = colon
        }
        if end > 0, host[end - 1] == dot { end -= 1 }
        let name = UnsafeBufferPointer(rebasing: host[..<end])
        guard !name.isEmpty, !name.contains(Syntax.colon) else { return .malformed }
        if Self.isIPv4(name) { return .own }
        for own in names where Self.equal(own, name[...]) { return .own }
        for suffix in suffixes where name.count > suffix.count {
            let label = name.count - suffix.count
            if !name[..<label].contains(dot), Self.equal(suffix, name[label...]) { return .own }
        }
        return .other
    }

    /// Nothing, or `:` and digits.
    private static func isPort(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard let first = bytes.first else { return true }
        return first == Syntax.colon && bytes.dropFirst().allSatisfy(Syntax.isDigit)
    }

    /// Four numbers from 0 to 255 between dots.
    private static func isIPv4(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        var parts = 0, value = 0, digits = 0
        for byte in name {
            if byte == dot {
                guard digits > 0 else { return false }
                parts += 1
                (value, digits) = (0, 0)
            } else {
                guard Syntax.isDigit(byte), digits < 3 else { return false }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
                guard value <= 255 else { return false }
            }
        }
        return parts == 3 && digits > 0
    }

    /// Whether `bytes` are `lowercase` in any case.
    private static func equal(_ lowercase: [UInt8], _ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard lowercase.count == bytes.count else { return false }
        for (own, byte) in zip(lowercase, bytes) where own != Syntax.lower(byte) { return false }
        return true
    }
}

private let dot = UInt8(ascii: ".")
