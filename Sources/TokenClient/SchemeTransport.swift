import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Each request by its URL's scheme, the one place the choice is made: http:// through `plain` in this process,
/// anything else (https://) through `secure`, or `plain` too (TLS in process) when none is given.
public struct SchemeTransport: HTTPTransport {
    private let plain: SocketHTTPTransport
    private let secure: any HTTPTransport

    public init(plain: SocketHTTPTransport = SocketHTTPTransport(), secure: (any HTTPTransport)? = nil) {
        self.plain = plain
        self.secure = secure ?? plain
    }

    public func send(_ request: URLRequest, bodyLimit: Int) async throws -> (Data, HTTPURLResponse) {
        if request.url?.scheme?.lowercased() == "http" { return try await plain.send(request, bodyLimit: bodyLimit) }
        return try await secure.send(request, bodyLimit: bodyLimit)
    }
}
