import AccessToken
import Foundation
import TestSupport

/// A token server on 127.0.0.1 that behaves as agora-token-service does with `CORS_ALLOW_ORIGIN` set to a list: a
/// request without an allowed `Origin` (every native app's) gets `403 {"error":"Origin not allowed"}`; one with it gets
/// a sound token for what the `fetch` shape asked.
final class OriginRequiredServer: Sendable {
    static let origin = "https://app.example"
    private let server: HostileServer

    var url: URL { server.url }

    init() throws {
        server = try HostileServer { connection in
            let (head, _, body) = connection.request.partition("\r\n\r\n")
            let allowed = head.split(separator: "\r\n").contains { $0.lowercased() == "origin: \(Self.origin)" }
            func answer(_ status: String, _ json: String) {
                connection.write(TestSupport.head(status, ["Content-Type: application/json", "Content-Length: \(json.utf8.count)"]
                    + (allowed ? ["Access-Control-Allow-Origin: \(Self.origin)"] : [])) + json)
            }
            guard allowed else { return answer("403 Forbidden", #"{"error":"Origin not allowed"}"#) }
            let fields = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
            guard let channel = fields["channelName"] as? String, let uid = (fields["uid"] as? NSNumber).flatMap({ UInt32(exactly: $0.int64Value) }),
                  let token = try? AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, channel: channel,
                                                         user: .uid(uid), role: .publisher, tokenExpire: 600, privilegeExpire: 600,
                                                         issuedAt: UInt32(Date().timeIntervalSince1970)) else {
                return answer("400 Bad Request", #"{"error":"bad request"}"#)
            }
            answer("200 OK", #"{"token":"\#(token)","expiresIn":600}"#)
        }
    }

    /// Stops the server and waits for its threads (`HostileServer.stop`).
    func stop() { server.stop() }
}

extension String {
    /// The text before the first `separator`, the separator, and the text after it (all of it, and two empty parts, when
    /// there is none).
    fileprivate func partition(_ separator: String) -> (String, String, String) {
        guard let range = range(of: separator) else { return (self, "", "") }
        return (String(self[..<range.lowerBound]), separator, String(self[range.upperBound...]))
    }
}
