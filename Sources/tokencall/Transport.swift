import TokenClient

extension SchemeTransport {
    /// How tokencall sends token requests: http:// in this process, https:// through URLSession in a child process
    /// (`ChildProcessTransport`), where an answer FoundationNetworking traps on (#5285) ends only the child.
    static func tokencall() -> SchemeTransport {
        SchemeTransport(plain: SocketHTTPTransport(userAgent: "tokencall/\(TokenCallVersion.current)"), secure: ChildProcessTransport.ownBinary())
    }
}
