import TokenClient

extension SchemeTransport {
    /// How tokencall sends token requests: http:// in this process, https:// through `secure`: by default URLSession in
    /// a child process (`ChildProcessTransport`), where an answer FoundationNetworking traps on (#5285) ends only the child.
    static func tokencall(secure: any HTTPTransport = ChildProcessTransport.ownBinary()) -> SchemeTransport {
        SchemeTransport(plain: SocketHTTPTransport(userAgent: "tokencall/\(TokenCallVersion.current)"), secure: secure)
    }
}
