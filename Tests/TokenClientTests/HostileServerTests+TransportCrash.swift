import TestSupport

extension HostileServerTests {
    /// Answers that FoundationNetworking in Swift 6.3.1 (libcurl 7.88) completes without a response, and then traps
    /// (#5285); tokencall reads them in process (`LoopHTTPTransportTests`).
    enum TransportCrash {
        enum EndlessHead: String, CaseIterable, Sendable {
            /// The connection closes cleanly (FIN) before the blank line that ends the head.
            case closedInsideTheHead
            /// A chunked body with a trailer field, which FoundationNetworking takes for the start of a new head.
            case chunkedTrailer

            func write(to connection: HostileServer.Connection) {
                switch self {
                case .closedInsideTheHead:
                    connection.write("HTTP/1.1 200 OK\r\nX-Slow: aaa")
                case .chunkedTrailer:
                    connection.write(head("200 OK", ["Content-Type: application/json", "Transfer-Encoding: chunked"])
                        + "2\r\n{}\r\n0\r\nX-Checksum: 1\r\n\r\n")
                }
            }
        }
    }
}
