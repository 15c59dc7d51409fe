import TLS
import TokenClient

extension SocketHTTPTransport {
    /// How tokencall sends token requests: http:// and https:// in this process, https:// certificates checked against
    /// `trust`.
    static func tokencall(trust: TLSTrust = .system) -> SocketHTTPTransport {
        SocketHTTPTransport(userAgent: "tokencall/\(TokenCallVersion.current)", trust: trust)
    }
}
