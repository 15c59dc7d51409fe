// libFuzzer entry point for the two parsers of `--token-request` and `--token-field`/`--expires-field`.
//
// Built by Scripts/fuzz.sh together with Sources/TokenClient/RequestTemplate.swift and FieldPath.swift into one module
// named TokenClient (with the JSON and PrintableText modules built first). It is not part of the Swift package.
//
// Byte 0 picks the mode (its low bit counts):
//   0  the rest is a template  -> RequestTemplate(parsing:), then filled with hostile values
//   1  the rest is a field path -> FieldPath(parsing:) (`.` alone the whole answer), then looked up in a fixed answer
// Besides crashes, the harness traps when a template that parsed fills into a request that could hurt: a path or
// query byte a URL cannot hold, a value that escaped its segment or its query parameter, or a body that is not JSON.
// Whatever the mode, the text is also shown as tokencall shows a URL (`urlWithoutCredentials`, which a template's
// `shown` uses): the harness traps when that keeps a query, a fragment or a user part, or changes when done again.

import JSON
import PrintableText

/// Values chosen to break out of wherever they stand, each beside plain values for the same kind of user.
private let cases: [(plain: RequestTemplate.Values, hostile: RequestTemplate.Values)] = [
    (.init(channel: "x", user: .uid(1), publisher: true, expire: 1),
     .init(channel: "a/../b?c=d&e#f g%20\"h\\i\n", user: .uid(UInt32.max), publisher: true, expire: UInt32.max)),
    (.init(channel: "x", user: .account("y"), publisher: false, expire: 1),
     .init(channel: "..", user: .account("{uid}&=/\u{0}\u{7f}é\u{2028}\"}]"), publisher: false, expire: 0)),
]

/// What a filled path or query may hold: RFC 3986's unreserved characters, sub-delims, `:@/?` and `%` escapes.
private let urlBytes = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?%".utf8)

private let answer = JSONValue.parse(Array(#"{"token": "t", "data": {"token": "u", "list": ["v", {"exp": 5}]}, "n": 1}"#.utf8))!

/// The separators of a path or query, in order: what a value must never add to.
private func shape(_ text: String, _ separators: String) -> [Character] {
    text.filter(separators.contains)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    let shown = text.urlWithoutCredentials
    precondition(!shown.contains("?") && !shown.contains("#"), "a shown URL keeps its query or fragment")
    if let scheme = shown.firstRange(of: "://"), !shown[..<scheme.lowerBound].contains(where: { "/?#".contains($0) }) {
        precondition(!shown[scheme.upperBound...].prefix { $0 != "/" }.contains("@"), "a shown URL keeps a user part")
    }
    precondition(shown.urlWithoutCredentials == shown, "showing a shown URL changes it")
    if data[0] & 1 == 0 {
        guard let template = try? RequestTemplate(parsing: text) else { return 0 }
        precondition(!template.shown.contains("?") && template.shown.hasPrefix(template.method.rawValue + " /"), "a template shown with its query")
        for (plain, hostile) in cases {
            guard let expected = try? template.filled(with: plain) else { continue }
            guard let request = try? template.filled(with: hostile) else { preconditionFailure("fills plain values but not these") }
            precondition(request.path.first == "/", "a path that does not start with /")
            precondition((request.path + (request.query ?? "")).utf8.allSatisfy(urlBytes.contains), "a byte a URL cannot hold")
            precondition(shape(request.path, "/?") == shape(expected.path, "/?"), "a value added a path segment")
            precondition(shape(request.query ?? "", "&=#") == shape(expected.query ?? "", "&=#"), "a value added a query parameter")
            if let body = request.body { precondition(JSONValue.parse(body) != nil, "a body that is not JSON") }
        }
    } else {
        guard let path = try? FieldPath(parsing: text) else { return 0 }
        precondition((1...FieldPath.depthLimit).contains(path.segments.count) || (path.isWhole && text == "."))
        _ = path.value(in: answer)
    }
    return 0
}
