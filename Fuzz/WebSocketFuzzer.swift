// libFuzzer entry point for the WebSocket frame reader.
//
// Built by Scripts/fuzz.sh together with Sources/WebSocket/*.swift into one module named WebSocket. It is not
// part of the Swift package.
//
// Byte 0 picks the reader's role (bit 7: client, else server) and how the rest arrives: in one piece, or in
// chunks of pseudo-random sizes (seeded by byte 0) up to 1, 2, 7, 64, 512 or 4096 bytes. The message limit is
// 1024 bytes, so that the limit is reached. A finding is a crash, or one of these broken (each a trap):
//   - the events and the failure are the same however the bytes are split;
//   - no message is over the limit, no control payload over 125 bytes;
//   - every event, written again by the other end (masked when a client writes), reads back as itself.
// The same bytes are read as a server's answer head by `WebSocketHandshake.checkAnswer`: it must return, and take
// only a head that holds the accept value of the key.

let limit = 1024

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let role: WebSocketReader.Role = data[0] & 0x80 != 0 ? .client : .server
    let stream = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let whole = read(stream, in: [stream.count], role: role)
    let chunked = read(stream, in: arrivalSizes(of: stream.count, seed: data[0]), role: role)
    if whole.events != chunked.events || whole.failure != chunked.failure {
        fatalError("the reading depends on how the bytes arrive:\n  whole:   \(whole)\n  chunked: \(chunked)")
    }
    for event in whole.events { check(event, readBy: role) }
    let key = "dGhlIHNhbXBsZSBub25jZQ=="
    if case .success = WebSocketHandshake.checkAnswer(stream, key: key),
       stream.firstRange(of: Array(WebSocketHandshake.acceptValue(forKey: key).utf8)) == nil {
        fatalError("an answer without the accept value was taken")
    }
    return 0
}

private func read(_ stream: [UInt8], in sizes: [Int], role: WebSocketReader.Role) -> (events: [WebSocketEvent], failure: WebSocketFailure?) {
    var reader = WebSocketReader(role: role, maxMessageBytes: limit)
    var events: [WebSocketEvent] = []
    var offset = 0
    do {
        for size in sizes {
            let end = min(offset + size, stream.count)
            reader.append(stream[offset..<end])
            offset = end
            while let event = try reader.next() { events.append(event) }
        }
    } catch {
        return (events, error)
    }
    return (events, nil)
}

private func check(_ event: WebSocketEvent, readBy role: WebSocketReader.Role) {
    let mask: (UInt8, UInt8, UInt8, UInt8)? = role == .server ? (9, 8, 7, 6) : nil
    let bytes: [UInt8]
    switch event {
    case .text(let text):
        if text.utf8.count > limit { fatalError("a text message of \(text.utf8.count) bytes") }
        bytes = WebSocketFrame.encode(.text, Array(text.utf8), mask: mask)
    case .binary(let payload):
        if payload.count > limit { fatalError("a binary message of \(payload.count) bytes") }
        bytes = WebSocketFrame.encode(.binary, payload, mask: mask)
    case .ping(let payload), .pong(let payload):
        if payload.count > 125 { fatalError("a control payload of \(payload.count) bytes") }
        guard case .ping = event else { return }
        bytes = WebSocketFrame.encode(.ping, payload, mask: mask)
    case .close(let code, let reason):
        if code == .noStatus { return }
        if reason.utf8.count > 123 { fatalError("a close reason of \(reason.utf8.count) bytes") }
        bytes = WebSocketFrame.close(code, reason: reason, mask: mask)
    }
    var again = WebSocketReader(role: role, maxMessageBytes: limit)
    again.append(bytes)
    let reread = try? again.next()
    if reread != event { fatalError("\(event) was written again and read back as \(String(describing: reread))") }
}
