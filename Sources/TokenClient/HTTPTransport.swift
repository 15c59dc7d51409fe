import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one HTTP request: the network's seam, replaced by stubs in tests.
public protocol HTTPTransport: Sendable {
    /// The answer, refused (`invalidResponse`) as soon as it is known to pass `bodyLimit` bytes.
    /// Throws `CancellationError` at once when the calling task is cancelled.
    func send(_ request: URLRequest, bodyLimit: Int) async throws -> (Data, HTTPURLResponse)
}
