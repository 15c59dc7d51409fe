import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Each request by its URL's scheme, the one place the choice is made: http:// and https:// both through `plain` in
/// this process (TLS by OpenSSL for https://).
public struct SchemeTransport: HTTPTransport {
    private let plain: SocketHTTPTransport

    public init(plain: SocketHTTPTransport = SocketHTTPTransport()) {
        self.plain = plain
    }

    public func send(_ request: URLRequest, bodyLimit: Int) async throws -> (Data, HTTPURLResponse) {
        try await plain.send(request, bodyLimit: bodyLimit)
    }
}
