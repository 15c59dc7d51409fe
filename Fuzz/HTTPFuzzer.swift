// libFuzzer entry point for HTTP1's request parser, the server's direction.
//
// Built by Scripts/fuzz.sh together with Sources/HTTP1 into one module named HTTP1, so its internals are
// reachable. It is not part of the Swift package.
//
// Byte 0 picks how the rest arrives: in one piece, or in chunks of pseudo-random sizes (seeded by byte 0)
// up to 1, 2, 7, 64, 512 or 4096 bytes. The rest is what a client sends on one connection. The harness reads
// it as the server does: hand the parser what arrived, and what a request did not use to the next, stop at a refusal.
// A finding is a crash, or one of these broken (each a trap with its reason):
//   - the verdicts (every request, then the refusal or what is left waiting) are the same however the bytes
//     are split;
//   - a request uses no more bytes than it was given, and at least its head's closing CR LF CR LF in all;
//   - an accepted request holds nothing the reader refuses: a method or header name that is not a token, a
//     control character in a header, Transfer-Encoding, a body that is not Content-Length long or over the limit;
//   - an accepted request's Host is judged by HostNames as a plain reading of it judges it (`hostJudgement`).

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
    var parser = RequestParser()
    var seen: [String] = []
    var offset = 0
    /// Bytes the parser has taken since the last request ended.
    var taken = 0
    for size in sizes {
        let end = min(offset + size, stream.count)
        var arrived = stream[offset..<end]
        offset = end
        reading: while true {
            switch parser.read(arrived) {
            case .needMore:
                taken += arrived.count
                break reading
            case .refused(let refusal):
                return seen + ["refused \(refusal.status)"]
            case .request(let request, let consumed):
                if consumed > arrived.count || taken + consumed < 4 {
                    fatalError("a request used \(consumed) of \(arrived.count) bytes, after \(taken)")
                }
                check(request)
                seen.append(describe(request))
                arrived = arrived.dropFirst(consumed)
                taken = 0
                if arrived.isEmpty { break reading }
            }
        }
    }
    return seen + ["waiting with \(taken) bytes"]
}

private func check(_ request: HTTPRequest) {
    if request.method.isEmpty || !request.method.utf8.allSatisfy(Syntax.isTokenByte) {
        fatalError("accepted the method \(request.method.debugDescription)")
    }
    for (name, value) in request.fields.map({ ($0.name, $0.value) }) {
        if name.isEmpty || !name.utf8.allSatisfy(Syntax.isTokenByte) { fatalError("accepted the header name \(name.debugDescription)") }
        if value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            fatalError("accepted a control character in \(value.debugDescription)")
        }
    }
    if let host = request.header("Host"), !host.isEmpty, names.judge(host) != hostJudgement(host) {
        fatalError("judged the Host \(host.debugDescription) \(names.judge(host)), not \(hostJudgement(host))")
    }
    if request.header("Transfer-Encoding") != nil { fatalError("accepted Transfer-Encoding") }
    if request.body.count > RequestParser.maxBodyBytes { fatalError("accepted a body of \(request.body.count) bytes") }
    let length = request.header("Content-Length").map { Int($0) } ?? 0
    if length != request.body.count {
        fatalError("read \(request.body.count) body bytes for Content-Length \(request.header("Content-Length") ?? "none")")
    }
}

private let names = HostNames(["localhost", "Tokens.Example.com.", "*.farm.example"])

/// What `names` should make of `host`, read the plain way: split at colons and dots, lowercased a byte at a time.
private func hostJudgement(_ host: String) -> HostNames.Judgement {
    let bytes = Array(host.utf8)
    func isPort(_ rest: ArraySlice<UInt8>) -> Bool { rest.isEmpty || (rest.first == Syntax.colon && rest.dropFirst().allSatisfy(Syntax.isDigit)) }
    if bytes.first == UInt8(ascii: "[") {
        guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), close > 1,
              bytes[1..<close].allSatisfy({ "0123456789abcdefABCDEF:.".utf8.contains($0) }), isPort(bytes[(close + 1)...]) else {
            return .malformed
        }
        return .own
    }
    let parts = bytes.split(separator: Syntax.colon, omittingEmptySubsequences: false)
    guard parts.count <= 2, parts.count == 1 || parts[1].allSatisfy(Syntax.isDigit) else { return .malformed }
    var name = parts[0].map(Syntax.lower)
    if name.last == UInt8(ascii: ".") { name.removeLast() }
    guard !name.isEmpty else { return .malformed }
    let labels = name.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    if labels.count == 4, labels.allSatisfy({ (1...3).contains($0.count) && $0.allSatisfy(Syntax.isDigit) && Int(String(decoding: $0, as: UTF8.self))! <= 255 }) {
        return .own
    }
    if name.elementsEqual("localhost".utf8) || name.elementsEqual("tokens.example.com".utf8) { return .own }
    if labels.count == 3, !labels[0].isEmpty, labels[1].elementsEqual("farm".utf8), labels[2].elementsEqual("example".utf8) { return .own }
    return .other
}

private func describe(_ request: HTTPRequest) -> String {
    let query = request.query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    let headers = request.fields.map { "\($0.name): \($0.value)" }
    return "\(request.method) \(request.path.debugDescription) \(query) \(request.version) \(headers) body \(request.body)"
}
