import Foundation
import HTTP1
import PrintableText
import TLS

/// Where a connection goes, and so which requests it may carry: the host and port, and for https:// the trust its
/// certificate was checked against.
struct Destination: Hashable, Sendable, CustomStringConvertible {
    /// The host as connected to: lowercase, an IPv6 address without its brackets.
    let host: String
    let port: UInt16
    /// For https://; nil for http://.
    let trust: TLSTrust?

    var description: String {
        let shown = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        return "\(trust == nil ? "http" : "https")://\(shown):\(port)"
    }
}

/// A request as bytes, and where to send them.
struct RequestPlan: Sendable {
    let url: URL
    let destination: Destination
    let method: String
    let bytes: [UInt8]

    /// Headers the transport writes itself, whatever the request says.
    private static let framing: Set<String> = ["host", "connection", "content-length", "transfer-encoding"]

    /// `closing`: the request says `Connection: close` (its connection is not kept). A CA file that cannot be read is
    /// refused here, before any connection.
    init(_ request: HTTPRequest, userAgent: String?, trust: TLSTrust, closing: Bool) throws(TokenClientError) {
        let scheme = request.url?.scheme?.lowercased()
        guard let url = request.url, scheme == "http" || scheme == "https", var host = url.host, !host.isEmpty else {
            throw .unsendable("\(request.target.urlWithoutCredentials.escapedForPrinting) is not an http:// or https:// URL with a host")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let defaultPort = scheme == "https" ? 443 : 80
        let port = url.port ?? defaultPort
        guard let port = UInt16(exactly: port), port > 0 else { throw .unsendable("the port \(port) is not 1 to 65535") }
        let method = request.method
        guard HTTPRequest.isMethod(method) else {
            throw .unsendable("the method \(method.escapedForPrinting) is not an HTTP method")
        }
        if scheme == "https" {
            do throws(TLSFailure) { _ = try TLSContext.shared(trust) } catch { throw .transport(error.description) }
        }
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        let path = components?.percentEncodedPath ?? ""
        let target = (path.isEmpty ? "/" : path) + (components?.percentEncodedQuery.map { "?\($0)" } ?? "")
        let shownHost = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        var fields: HTTPFields = [("Host", shownHost + (port == defaultPort ? "" : ":\(port)"))]
        if closing { fields.append("Connection", "close") }
        for field in request.fields where !Self.framing.contains(field.name.lowercased()) {
            guard field.isSendable else {
                throw .unsendable("the header \(field.name.escapedForPrinting) cannot be sent: its name is not a token, or its value holds a line break")
            }
            fields.append(field.name, field.value)
        }
        if let userAgent, !request.fields.contains("User-Agent") { fields.append("User-Agent", userAgent) }
        if !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { fields.append("Content-Length", String(request.body.count)) }
        self.url = url
        self.method = method
        destination = Destination(host: host.lowercased(), port: port, trust: scheme == "https" ? trust : nil)
        bytes = HTTPRequest(method: method, target: target, fields: fields, body: request.body).serialized()
    }
}
