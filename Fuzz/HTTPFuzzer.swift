// libFuzzer entry point for the HTTP request reader.
//
// Built by Scripts/fuzz.sh together with Sources/TokenServer/RequestReader.swift into one module named
// TokenServer, so the internal `RequestReader` is reachable. It is not part of the Swift package.
//
// Byte 0 picks how the rest arrives: in one piece, or in chunks of pseudo-random sizes (seeded by byte 0)
// up to 1, 2, 7, 64, 512 or 4096 bytes. The rest is what a client sends on one connection. The harness reads
// it as the server does: append what arrived, take each whole request off the front, stop at a refusal.
// A finding is a crash, or one of these broken (each a trap with its reason):
//   - the verdicts (every request, then the refusal or what is left waiting) are the same however the bytes
//     are split;
//   - a request uses at least its head's closing CR LF CR LF and no more bytes than have arrived;
//   - an accepted request holds nothing the reader refuses: a method or header name that is not a token, a
//     control character in a header, Transfer-Encoding, a body that is not Content-Length long or over the limit.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let stream = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let whole = verdicts(of: stream, in: [stream.count])
    let chunked = verdicts(of: stream, in: arrivalSizes(of: stream.count, seed: data[0]))
    if whole != chunked {
        fatalError("the verdicts depend on how the bytes arrive:\n  whole:   \(whole)\n  chunked: \(chunked)")
    }
    return 0
}

/// What the reader makes of `stream` arriving in pieces of `sizes` bytes: each request it reads, then its refusal or
/// how many bytes wait for more.
private func verdicts(of stream: [UInt8], in sizes: [Int]) -> [String] {
    var buffer: [UInt8] = []
    var seen: [String] = []
    var offset = 0
    for size in sizes {
        let end = min(offset + size, stream.count)
        buffer += stream[offset..<end]
        offset = end
        reading: while !buffer.isEmpty {
            switch RequestReader.read(buffer) {
            case .incomplete:
                break reading
            case .refuse(let refusal):
                return seen + ["refused \(refusal.status)"]
            case .request(let request, let consumed):
                if consumed < 4 || consumed > buffer.count { fatalError("a request used \(consumed) of \(buffer.count) bytes") }
                check(request)
                seen.append(describe(request))
                buffer.removeFirst(consumed)
            }
        }
    }
    return seen + ["waiting with \(buffer.count) bytes"]
}

private func check(_ request: HTTPRequest) {
    if request.method.isEmpty || !request.method.utf8.allSatisfy(RequestReader.isTokenByte) {
        fatalError("accepted the method \(request.method.debugDescription)")
    }
    for (name, value) in request.headers {
        if name.isEmpty || !name.utf8.allSatisfy(RequestReader.isTokenByte) { fatalError("accepted the header name \(name.debugDescription)") }
        if value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            fatalError("accepted a control character in \(value.debugDescription)")
        }
    }
    if request.header("Transfer-Encoding") != nil { fatalError("accepted Transfer-Encoding") }
    if request.body.count > RequestReader.maxBodyBytes { fatalError("accepted a body of \(request.body.count) bytes") }
    let length = request.header("Content-Length").map { Int($0) } ?? 0
    if length != request.body.count {
        fatalError("read \(request.body.count) body bytes for Content-Length \(request.header("Content-Length") ?? "none")")
    }
}

private func describe(_ request: HTTPRequest) -> String {
    let query = request.query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    let headers = request.headers.map { "\($0.name): \($0.value)" }
    return "\(request.method) \(request.path.debugDescription) \(query) \(request.version) \(headers) body \(request.body)"
}
