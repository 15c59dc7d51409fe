import TLS
import TokenClient

extension SocketHTTPTransport {
    /// How tokencall sends token requests: http:// and https:// in this process, https:// certificates checked against
    /// `trust`; on at most `workers` threads at a time when given.
    static func tokencall(trust: TLSTrust = .system, workers: Int? = nil) -> SocketHTTPTransport {
        SocketHTTPTransport(userAgent: "tokencall/\(TokenCallVersion.current)", trust: trust, workers: workers)
    }
}
