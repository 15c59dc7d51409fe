// libFuzzer entry point for the hub's request reader and its clients' notice reader.
//
// Built by Scripts/fuzz.sh together with Sources/HubProtocol/*.swift into one module named HubProtocol (with
// Sources/JSON as an instrumented library). It is not part of the Swift package. The input is a text frame's
// bytes: `HubRequest(json:)` must return a request or an error for anything, and a request, written again with
// `json`, must read back as itself (what the client sends is what the hub reads). A video frame header check and
// stamp run on the same bytes: a stamped frame keeps its length and everything but the uid; a frame a client can
// read, encoded again, reads back as the same frame. `HubNotice(json:)` reads the same text as a client would: a
// notice, written again with `json`, must read back as itself (what the hub sends is what the client reads).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if HubVideoFrame.hasValidHeader(bytes) {
        let stamped = HubVideoFrame.stamped(bytes, uid: 0xA1B2_C3D4)
        if stamped.count != bytes.count || stamped[0] != bytes[0] || stamped[5...] != bytes[5...] || stamped[1...4] != [0xA1, 0xB2, 0xC3, 0xD4] {
            fatalError("stamping changed more than the uid")
        }
    }
    if let frame = try? HubVideoFrame(decoding: bytes), (try? HubVideoFrame(decoding: frame.encoded)) != frame {
        fatalError("a video frame read from \(bytes.count) bytes did not read back from its own encoding")
    }
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
    do {
        let request = try HubRequest(json: text)
        let again = try HubRequest(json: request.json)
        if again != request { fatalError("\(request) was written as \(request.json) and read back as \(again)") }
    } catch {
        if error.description.isEmpty { fatalError("an error without words") }
    }
    do {
        let notice = try HubNotice(json: text)
        let again = try HubNotice(json: notice.json)
        if again != notice { fatalError("\(notice) was written as \(notice.json) and read back as \(again)") }
    } catch {
        if error.description.isEmpty { fatalError("a notice error without words") }
    }
    return 0
}
