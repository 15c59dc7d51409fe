import Testing
import HTTP1

/// A request's `Host` against the names a server answers to: a name must be one of them, any IP address is the
/// server's own, and the port is not looked at.
@Suite struct HostNamesTests {
    let names = HostNames(["localhost", "Tokens.Example.com.", "*.farm.example"])

    @Test(arguments: [
        "localhost", "localhost:8082", "LOCALHOST:8082", "localhost.", "localhost.:8082", "localhost:",
        "tokens.example.com", "TOKENS.EXAMPLE.COM:443", "tokens.example.com.",
        "hub1.farm.example", "HUB2.Farm.Example.:8082",
        "127.0.0.1", "127.0.0.1:8082", "10.0.0.11:8082", "255.255.255.255", "0.0.0.0",
        "[::1]", "[::1]:8082", "[2001:db8::7]:443", "[::ffff:127.0.0.1]:80",
    ])
    func theServersOwnNamesAndAnyAddressAreItsOwn(host: String) {
        #expect(names.judge(host) == .own, "\(host)")
    }

    @Test(arguments: [
        "evil.example", "evil.example:8082", "localhost.evil.example", "127.0.0.1.evil.example", "evil-localhost",
        "farm.example", "a.b.farm.example", "example.com", "tokens.example.com.evil", "localhos", "localhost..",
        "256.0.0.1", "1.2.3", "1.2.3.4.5", "0127.0.0.1", "2130706433", "1..2.3",
    ])
    func otherNamesAreNot(host: String) {
        #expect(names.judge(host) == .other, "\(host)")
    }

    @Test(arguments: [
        "localhost:80a", "localhost:-1", ":8082", ".", ".:80", "::1", "[::1", "[]:80", "[::1]x", "[::1]:8x", "[evil.example]",
        "http://localhost", "localhost:80:80",
    ])
    func whatIsNotHostAndPortIsMalformed(host: String) {
        #expect(names.judge(host) == .malformed, "\(host)")
    }
}
