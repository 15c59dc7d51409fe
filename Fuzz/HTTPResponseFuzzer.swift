// libFuzzer entry point for HTTP1's response parser, the client's direction.
//
// Built by Scripts/fuzz.sh together with Sources/HTTP1 into one module named HTTP1, so its internals are reachable.
// It is not part of the Swift package.
//
// Byte 0 picks how the rest arrives (as in the HTTP harness, Fuzz/Arrivals.swift) and, by its bit 7, whether the
// request was a HEAD. The rest is what a server answers on one connection, after which it closes. A finding is a
// crash, or one of these broken (each a trap with its reason):
//   - the verdict (the answer, the refusal, or still waiting at the close) is the same however the bytes are split;
//   - an accepted answer's body is at most the limit, its status 200 to 599, and a Content-Length it names is its
//     body's length; its fields hold no CR, LF or other control but tab.

/// The body limit the harness reads with: small, so that inputs reach it.
private let limit = 1024

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let stream = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let method = data[0] & 0x80 == 0 ? "GET" : "HEAD"
    let whole = verdict(of: stream, in: [stream.count], method: method)
    let chunked = verdict(of: stream, in: arrivalSizes(of: stream.count, seed: data[0]), method: method)
    if whole != chunked {
        fatalError("the verdict depends on how the bytes arrive:\n  whole:   \(whole)\n  chunked: \(chunked)")
    }
    if case .response(let answer) = whole { check(answer) }
    return 0
}

/// What the reader makes of `stream` arriving in pieces of `sizes` bytes and then the close.
private func verdict(of stream: [UInt8], in sizes: [Int], method: String) -> ResponseParse {
    var parser = ResponseParser(bodyLimit: limit, method: method)
    var offset = 0
    for size in sizes {
        let end = min(offset + size, stream.count)
        let parse = parser.read(stream[offset..<end])
        if parse != .needMore { return parse }
        offset = end
    }
    let closed = parser.closed()
    if closed == .needMore { fatalError("still waiting after the close") }
    return closed
}

private func check(_ answer: HTTPReply) {
    if answer.body.count > limit { fatalError("accepted a body of \(answer.body.count) bytes, over the limit of \(limit)") }
    if !(200...599).contains(answer.status) { fatalError("accepted the status \(answer.status) as the answer") }
    for field in answer.fields {
        if field.name.isEmpty || !field.name.utf8.allSatisfy(Syntax.isTokenByte) {
            fatalError("accepted the field name \(field.name.debugDescription)")
        }
        if field.value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            fatalError("accepted a control character in \(field.value.debugDescription)")
        }
    }
    let framed = answer.header("Transfer-Encoding") == nil && ![204, 304].contains(answer.status) && !answer.body.isEmpty
    if framed, let length = answer.header("Content-Length"), Int(length) != answer.body.count {
        fatalError("read \(answer.body.count) body bytes for Content-Length \(length)")
    }
}
