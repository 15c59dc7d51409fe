// libFuzzer entry point for the token client's answer reader.
//
// Built by Scripts/fuzz.sh together with Sources/TokenClient/HTTPResponseReader.swift and TokenClientError.swift into
// one module named TokenClient, so the internal `HTTPResponseReader` is reachable. It is not part of the Swift package.
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
    if case .success(let answer) = whole { check(answer) }
    return 0
}

/// What the reader makes of `stream` arriving in pieces of `sizes` bytes and then the close.
private func verdict(of stream: [UInt8], in sizes: [Int], method: String) -> Result<HTTPResponseReader.Answer, TokenClientError> {
    var reader = HTTPResponseReader(bodyLimit: limit, method: method)
    var offset = 0
    do throws(TokenClientError) {
        for size in sizes {
            let end = min(offset + size, stream.count)
            if let answer = try reader.read(stream[offset..<end]) { return .success(answer) }
            offset = end
        }
        return .success(try reader.closed())
    } catch {
        return .failure(error)
    }
}

private func check(_ answer: HTTPResponseReader.Answer) {
    if answer.body.count > limit { fatalError("accepted a body of \(answer.body.count) bytes, over the limit of \(limit)") }
    if !(200...599).contains(answer.head.status) { fatalError("accepted the status \(answer.head.status) as the answer") }
    for field in answer.head.fields {
        if field.name.isEmpty || !field.name.utf8.allSatisfy(HTTPResponseReader.isTokenByte) {
            fatalError("accepted the field name \(field.name.debugDescription)")
        }
        if field.value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            fatalError("accepted a control character in \(field.value.debugDescription)")
        }
    }
    let framed = answer.head.value("Transfer-Encoding") == nil && ![204, 304].contains(answer.head.status) && !answer.body.isEmpty
    if framed, let length = answer.head.value("Content-Length"), Int(length) != answer.body.count {
        fatalError("read \(answer.body.count) body bytes for Content-Length \(length)")
    }
}
