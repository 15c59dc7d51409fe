import Foundation
import HTTP1
import Sockets
import TLS

/// One response, `Cache-Control: no-store`: JSON, or one of the server's assets (`TokenServerConfig.assets`).
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    public var contentType = "application/json"
    /// Who takes the connection over once this answer is sent (a 101); nil for an ordinary answer.
    var takeover: Takeover?

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON answer.
    public static func json(_ status: Int, _ value: some Encodable, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(value)).map { Array($0) } ?? Array(#"{"error":"could not encode the answer"}"#.utf8)
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    /// `{"error": message}` with this status.
    public static func error(_ status: Int, _ message: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        json(status, member: "error", message, headers: headers)
    }

    /// `{name: text}`: the bytes `json(status, [name: text])` gives, without an encoder when no character needs escaping.
    package static func json(_ status: Int, member name: String, _ text: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        var body: [UInt8] = []
        body.reserveCapacity(name.utf8.count + text.utf8.count + 7)
        body.append(UInt8(ascii: "{"))
        guard PlainJSON.appendString(name, to: &body) else { return json(status, [name: text], headers: headers) }
        body.append(UInt8(ascii: ":"))
        guard PlainJSON.appendString(text, to: &body) else { return json(status, [name: text], headers: headers) }
        body.append(UInt8(ascii: "}"))
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    /// A 101 with these headers, after which `takeover` has the connection.
    static func switchingProtocols(headers: [(name: String, value: String)], to takeover: Takeover) -> HTTPResponse {
        var response = HTTPResponse(status: 101, headers: headers)
        response.takeover = takeover
        return response
    }

    /// The bytes on the wire; an answer to HEAD (`withBody: false`) has the headers, Content-Length included, and no body.
    /// `date` is the `Date` field line (`HTTPDate.field`), empty for none.
    func serialized(keepAlive: Bool, withBody: Bool = true, date: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        write(keepAlive: keepAlive, withBody: withBody, date: date, to: &bytes)
        return bytes
    }

    /// Appends the bytes `serialized` gives to `bytes`.
    func write(keepAlive: Bool, withBody: Bool = true, date: [UInt8], to bytes: inout [UInt8]) {
        var headerBytes = 0
        for header in headers { headerBytes += header.name.utf8.count + header.value.utf8.count + 4 }
        bytes.reserveCapacity(bytes.count + 160 + date.count + contentType.utf8.count + body.count + headerBytes)
        HTTPReply.appendStatusLine(status, to: &bytes)
        bytes.append(contentsOf: date)
        guard status != 101 else {
            for header in headers { HTTPReply.appendField(header.name, header.value, to: &bytes) }
            HTTPReply.append("\r\n", to: &bytes)
            return
        }
        if !body.isEmpty || status != 204 { HTTPReply.appendField("Content-Type", contentType, to: &bytes) }
        HTTPReply.append("Cache-Control: no-store\r\nContent-Length: ", to: &bytes)
        PlainJSON.appendDecimal(body.count, to: &bytes)
        HTTPReply.append(keepAlive ? "\r\nConnection: keep-alive\r\n" : "\r\nConnection: close\r\n", to: &bytes)
        for header in headers { HTTPReply.appendField(header.name, header.value, to: &bytes) }
        HTTPReply.append("\r\n", to: &bytes)
        if withBody { bytes.append(contentsOf: body) }
    }
}

/// Takes a connection over from the HTTP server after a 101: its wire (the socket, and its TLS session on https), the
/// bytes that arrived after the request, the client's address, and its place in the server's count (released once
/// instead of closing the socket, so the count stays true).
struct Takeover: Sendable {
    let adopt: @Sendable (_ wire: sending Wire, _ leftover: [UInt8], _ address: String, _ counted: CountedConnection) -> Void
    /// Closes the connection of this `CountedConnection.id`, from any thread: the server gave its place to another.
    let evict: @Sendable (_ id: UInt64) -> Void
}
