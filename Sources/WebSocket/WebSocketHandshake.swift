import CCrypto
import Foundation

/// The opening handshake (RFC 6455 §4): a server's checks on the client's request and the key it answers with.
public enum WebSocketHandshake {
    /// The GUID RFC 6455 §1.3 appends to the client's key.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// A request that is not a WebSocket handshake this server takes: the HTTP status and why, in words.
    public struct Refusal: Error, Equatable, Sendable {
        /// 400, or 426 (with `Sec-WebSocket-Version: 13`) for a version other than 13.
        public let status: Int
        public let message: String
    }

    /// The `Sec-WebSocket-Accept` value for a request, or why it is refused: the method must be GET on HTTP/1.1,
    /// `Upgrade` must name `websocket`, `Connection` must list `Upgrade`, the version must be 13 and the key 16
    /// bytes in base64. `header` reads one header by name, case-insensitively.
    public static func accept(method: String, version: String, header: (String) -> String?) -> Result<String, Refusal> {
        func refuse(_ message: String) -> Result<String, Refusal> { .failure(Refusal(status: 400, message: message)) }
        guard method == "GET" else { return refuse("a WebSocket handshake is a GET, not \(method)") }
        guard version == "HTTP/1.1" else { return refuse("a WebSocket handshake needs HTTP/1.1, not \(version)") }
        guard hasToken("websocket", in: header("Upgrade")) else {
            return refuse("this endpoint speaks WebSocket only; send Upgrade: websocket and Connection: Upgrade")
        }
        guard hasToken("upgrade", in: header("Connection")) else { return refuse("the Connection header must list Upgrade") }
        guard header("Sec-WebSocket-Version").map(trimmingSpace) == "13" else {
            return .failure(Refusal(status: 426, message: "only WebSocket version 13 is spoken; send Sec-WebSocket-Version: 13"))
        }
        guard let key = header("Sec-WebSocket-Key").map({ String(trimmingSpace($0)) }),
              let nonce = Data(base64Encoded: key), nonce.count == 16 else {
            return refuse("Sec-WebSocket-Key must be 16 random bytes in base64 (24 characters)")
        }
        return .success(acceptValue(forKey: key))
    }

    /// base64(SHA-1(key + GUID)): what the server answers to `key`, and what a client checks the answer against.
    public static func acceptValue(forKey key: String) -> String {
        let input = Array((key + guid).utf8)
        var digest = [UInt8](repeating: 0, count: 20)
        _ = SHA1(input, input.count, &digest)
        return Data(digest).base64EncodedString()
    }

    /// The head of the 101 answer that completes the handshake.
    public static func switchingProtocols(accept: String) -> [UInt8] {
        Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n".utf8)
    }

    static func hasToken(_ token: String, in value: String?) -> Bool {
        guard let value else { return false }
        return value.split(separator: ",").contains { trimmingSpace($0).lowercased() == token }
    }

    /// A field value without the spaces and tabs around it (RFC 9110's OWS). Not Foundation's `trimmingCharacters`,
    /// which a thousand clients opening at once spent a tenth of a load's loops in.
    static func trimmingSpace(_ text: some StringProtocol) -> Substring {
        let isSpace = { (character: Character) in character == " " || character == "\t" }
        let text = Substring(text)
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return "" }
        return text[first...last]
    }
}
