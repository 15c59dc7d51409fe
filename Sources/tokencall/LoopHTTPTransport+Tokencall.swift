import TLS
import TokenClient

extension LoopHTTPTransport {
    /// How tokencall sends token requests: http:// and https:// in this process, https:// certificates checked against
    /// `trust`; at most `connectionsPerOrigin` connections to the token server at a time.
    static func tokencall(trust: TLSTrust = .system, connectionsPerOrigin: Int = defaultConnectionsPerOrigin) -> LoopHTTPTransport {
        LoopHTTPTransport(userAgent: "tokencall/\(TokenCallVersion.current)", trust: trust, connectionsPerOrigin: connectionsPerOrigin)
    }
}
