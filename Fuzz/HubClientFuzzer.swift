// libFuzzer entry point for a hostile hub: what a client reads from its hub, `HubInbound` (Sources/HubClient), fed
// what a hub could send.
//
// Built by Scripts/fuzz.sh together with Sources/HubClient/HubInbound.swift into one module named HubClient, with
// HubProtocol, AgoraVocabulary, AccessToken, WebSocket and JSON as instrumented libraries. It is not part of the Swift package.
//
// Byte 0 picks how the wire's bytes arrive (whole, or chunks seeded by it, as in the WebSocket harness). The rest is
// messages, each a kind byte and a two-byte big-endian length, then that many bytes: kind 0 a text frame (a notice),
// 1 a binary frame (a video frame), 2 a ping, 3 a text message in two fragments with a ping between them, 4 a close
// frame; any other kind puts its bytes on the wire as they are. A finding is a crash, or one of these broken (each a
// trap):
//   - the steps are the same however the bytes arrive, and none follows `closed` or `broken`;
//   - a notice delivered reads back as itself from its own JSON; a video frame from its own encoding, with its cells
//     filling its columns × rows;
//   - a binary message no larger than a frame may be, with a valid header, never breaks the link: it is a frame, or
//     that user's unreadable one, named by the uid in its header (issue 19: one user's video never costs the link);
//   - the link breaks only with a code a client may send (1002, 1007, 1008, 1009), saying why.

import HubProtocol
import WebSocket

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let (wire, binaries) = hubWire(input)
    for bytes in binaries { checkVideo(bytes) }
    let whole = read(wire, in: [wire.count])
    let chunked = read(wire, in: arrivalSizes(of: wire.count, seed: data[0]))
    if whole != chunked { fatalError("the reading depends on how the bytes arrive:\n  whole:   \(whole)\n  chunked: \(chunked)") }
    for (index, step) in whole.enumerated() { check(step, last: index == whole.count - 1) }
    return 0
}

/// The hub's frames (unmasked, as a hub sends) for the messages in `input`, and the binary messages among them.
private func hubWire(_ input: [UInt8]) -> (wire: [UInt8], binaries: [[UInt8]]) {
    var wire: [UInt8] = [], binaries: [[UInt8]] = []
    var offset = 0
    while offset + 3 <= input.count {
        let kind = input[offset], length = Int(input[offset + 1]) << 8 | Int(input[offset + 2])
        let payload = Array(input[(offset + 3)..<min(input.count, offset + 3 + length)])
        offset += 3 + payload.count
        switch kind {
        case 0: wire += WebSocketFrame.encode(.text, payload)
        case 1:
            wire += WebSocketFrame.encode(.binary, payload)
            binaries.append(payload)
        case 2: wire += WebSocketFrame.encode(.ping, Array(payload.prefix(125)))
        case 3:
            let half = payload.count / 2
            var first = WebSocketFrame.encode(.text, Array(payload[..<half]))
            first[0] &= 0x7F  // not the final fragment
            wire += first + WebSocketFrame.encode(.ping, [])
            wire += WebSocketFrame.encode(.continuation, Array(payload[half...]))
        case 4: wire += WebSocketFrame.close(.normal, reason: String(decoding: payload.prefix(100), as: UTF8.self))
        default: wire += payload
        }
    }
    return (wire, binaries)
}

private func read(_ wire: [UInt8], in sizes: [Int]) -> [HubInbound.Step] {
    var inbound = HubInbound()
    var steps: [HubInbound.Step] = []
    var offset = 0
    for size in sizes {
        let end = min(offset + size, wire.count)
        inbound.append(wire[offset..<end])
        offset = end
        while let step = inbound.next() {
            steps.append(step)
            switch step {
            case .closed, .broken: return steps
            default: continue
            }
        }
    }
    return steps
}

private func check(_ step: HubInbound.Step, last: Bool) {
    switch step {
    case .deliver(.notice(let notice)):
        let again = try? HubNotice(json: notice.json)
        if again != notice { fatalError("\(notice) was written as \(notice.json) and read back as \(String(describing: again))") }
    case .deliver(.video(let frame)):
        if frame.cells.count != frame.columns * frame.rows { fatalError("a \(frame.columns)×\(frame.rows) frame of \(frame.cells.count) cells") }
        if (try? HubVideoFrame(decoding: frame.encoded)) != frame { fatalError("a video frame did not read back from its own encoding") }
    case .deliver(.unreadableVideo(_, let problem)):
        if problem.isEmpty { fatalError("an unreadable frame without words") }
    case .deliver(let event):
        fatalError("the reader delivered \(event), which only the connection itself reports")
    case .broken(let code, let reason):
        if ![.protocolError, .invalidData, .policyViolation, .messageTooBig].contains(code) { fatalError("broken with \(code)") }
        if reason.isEmpty { fatalError("broken without words") }
        if !last { fatalError("read on after breaking") }
    case .closed:
        if !last { fatalError("read on after the close") }
    case .pong(let payload):
        if payload.count > 125 { fatalError("a ping of \(payload.count) bytes") }
    case .heard: break
    }
}

/// A binary message as the reader takes it, alone: within the size, with a frame's header, it is the user's content.
private func checkVideo(_ bytes: [UInt8]) {
    let step = HubInbound.video(bytes)
    guard bytes.count <= HubVideoFrame.maxBytes, let uid = HubVideoFrame.stampedUid(of: bytes) else {
        guard case .broken = step else { fatalError("a message that is not a frame was taken: \(step)") }
        return
    }
    switch step {
    case .deliver(.video(let frame)) where frame.uid == uid: break
    case .deliver(.unreadableVideo(uid, _)): break
    default: fatalError("a frame-sized binary message with a valid header from uid \(uid) gave \(step)")
    }
}
