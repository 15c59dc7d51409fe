import Foundation

extension WebSocketHandshake {
    /// The most a server's answer head may hold before the client gives up on it.
    public static let maxAnswerHeadBytes = 8192

    /// 16 random bytes in base64: a client's `Sec-WebSocket-Key`.
    public static func randomKey() -> String {
        var generator = SystemRandomNumberGenerator()
        let (high, low) = (generator.next() as UInt64, generator.next() as UInt64)
        return Data((0..<16).map { UInt8(truncatingIfNeeded: ($0 < 8 ? high : low) >> (($0 % 8) * 8)) }).base64EncodedString()
    }

    /// A client's opening request for `target` (path and query) on `host` (the Host header's value).
    public static func clientRequest(target: String, host: String, key: String) -> [UInt8] {
        Array(("GET \(target) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)
    }

    /// A server's answer that does not open the connection: its status line as sent (not escaped) and why in words.
    public struct AnswerRefusal: Error, Equatable, Sendable {
        public let statusLine: String
        public let problem: String
    }

    /// Checks a server's answer head (up to and without the blank line) to a request sent with `key`: `101`,
    /// `Upgrade: websocket`, `Connection: Upgrade`, the exact `Sec-WebSocket-Accept`, and no extension or
    /// subprotocol, since the client asked for none (RFC 6455 §4.1).
    public static func checkAnswer(_ head: [UInt8], key: String) -> Result<Void, AnswerRefusal> {
        let lines = headLines(head[...])
        let statusLine = String(lines.first ?? "")
        func refuse(_ problem: String) -> Result<Void, AnswerRefusal> {
            .failure(AnswerRefusal(statusLine: statusLine, problem: problem))
        }
        let status = statusLine.split(separator: " ", maxSplits: 2)
        guard status.count >= 2, status[0] == "HTTP/1.1" else { return refuse("not an HTTP/1.1 answer") }
        guard status[1] == "101" else { return refuse("not 101 Switching Protocols") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return refuse("a header line without a colon") }
            headers[line[..<colon].lowercased()] = String(trimmingSpace(line[line.index(after: colon)...]))
        }
        guard hasToken("websocket", in: headers["upgrade"]) else { return refuse("Upgrade is not websocket") }
        guard hasToken("upgrade", in: headers["connection"]) else { return refuse("Connection does not list Upgrade") }
        guard headers["sec-websocket-accept"] == acceptValue(forKey: key) else {
            return refuse("Sec-WebSocket-Accept is not the one for the key sent")
        }
        guard headers["sec-websocket-extensions"] == nil, headers["sec-websocket-protocol"] == nil else {
            return refuse("it names an extension or subprotocol, and none was asked for")
        }
        return .success(())
    }

    /// A head's lines, split at each CR LF (as a `String` splits at its "\r\n" characters, without the grapheme
    /// breaking that cost a thousand clients opening at once more than the rest of the check).
    public static func headLines(_ head: ArraySlice<UInt8>) -> [String] {
        var lines: [String] = []
        var start = head.startIndex, at = head.startIndex
        while at < head.endIndex {
            if head[at] == 13, at + 1 < head.endIndex, head[at + 1] == 10 {
                lines.append(String(decoding: head[start..<at], as: UTF8.self))
                at += 2
                start = at
            } else {
                at += 1
            }
        }
        lines.append(String(decoding: head[start...], as: UTF8.self))
        return lines
    }
}
