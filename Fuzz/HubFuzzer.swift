// libFuzzer entry point for the hub's request reader and its clients' notice reader.
//
// Built by Scripts/fuzz.sh together with Sources/HubProtocol/*.swift into one module named HubProtocol (with
// Sources/JSON, AccessToken and AgoraVocabulary as instrumented libraries). It is not part of the Swift package.
// The input is a text frame's bytes: `HubRequest(json:)` must return a request or an error for anything, and a
// request, written again with `json`, must read back as itself (what the client sends is what the hub reads).
// The same bytes as a video frame:
// the hub's check (`HubVideoFrame.check`) passes exactly what a client reads; stamped, such a frame keeps its length
// and reads back as the same frame with the new uid; encoded again, it reads back as itself. `HubNotice(json:)`
// reads the same text as a client would: a notice, written again with `json`, must read back as itself (what the
// hub sends is what the client reads).
// `HubAddress(parsing:)` (Sources/HubClient/HubAddress.swift, built in too) reads the same text as a `--hub` value:
// an address, written again, reads back as itself; a refusal says something, with every unsafe character escaped.

import PrintableText

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let decoded = Result { () throws(HubProtocolError) in try HubVideoFrame(decoding: bytes) }
    do {
        try HubVideoFrame.check(bytes)
        // What the hub forwards, every client reads, with the uid it stamped and nothing else changed.
        guard case .success(let frame) = decoded else { fatalError("the hub's check passed a frame a client cannot read") }
        let stamped = HubVideoFrame.stamped(bytes, uid: 0xA1B2_C3D4)
        var expected = frame
        expected.uid = 0xA1B2_C3D4
        if stamped.count != bytes.count || (try? HubVideoFrame(decoding: stamped)) != expected {
            fatalError("stamping changed more than the uid")
        }
        if (try? HubVideoFrame(decoding: frame.encoded)) != frame {
            fatalError("a video frame read from \(bytes.count) bytes did not read back from its own encoding")
        }
    } catch {
        if case .success = decoded { fatalError("the hub's check refused a frame a client reads: \(error)") }
        if error.description.isEmpty { fatalError("a refused video frame without words") }
    }
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
    roundTrip(text, read: HubRequest.init(json:), write: \.json)
    roundTrip(text, read: HubNotice.init(json:), write: \.json)
    do {
        let address = try HubAddress(parsing: text)
        let again = try? HubAddress(parsing: address.description)
        if again != address { fatalError("\(address) was written as \(address.description) and read back as \(String(describing: again))") }
    } catch {
        if error.description.isEmpty || error.description.unicodeScalars.contains(where: \.isUnsafeToPrint) {
            fatalError("a refused hub address said \(error.description.debugDescription)")
        }
    }
    return 0
}

/// Reads `text` as a message; one that reads must read back as itself from what `write` makes of it, and a refusal
/// must say something.
private func roundTrip<Message: Equatable>(_ text: String, read: (String) throws(HubProtocolError) -> Message,
                                           write: (Message) -> String) {
    do {
        let message = try read(text)
        let again = try read(write(message))
        if again != message { fatalError("\(message) was written as \(write(message)) and read back as \(again)") }
    } catch {
        if error.description.isEmpty { fatalError("an error without words") }
    }
}
