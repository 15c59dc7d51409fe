// libFuzzer entry point for the TLS record path of the token client: what a hostile https:// server sends after
// tokencall's ClientHello.
//
// Built by Scripts/fuzz.sh together with Sources/TLS/TLSSession.swift into one module named TLS (the session
// alone, without Wire and Sockets). It is not part of the Swift package.
//
// Byte 0 seeds how the rest arrives (Fuzz/Arrivals.swift); the rest is the server's side of the connection, after
// which it closes. A finding is a crash, or one of these broken (each a trap with its reason):
//   - the handshake never completes: finishing it needs a trusted server's private key, which no input holds;
//   - the session ends, after the close, in a `TLSFailure` with words, in a bounded number of steps, that name the
//     peer the server, never the client (Fuzz/TLSServerFuzzer.swift checks the other way round).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let stream = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let session = try! TLSSession(context: trust, host: data[0] & 1 == 0 ? "localhost" : "127.0.0.1")
    do throws(TLSFailure) {
        if try session.handshake() { fatalError("the handshake completed before the server said anything") }
        _ = session.takeOutgoing()
        var offset = 0
        for piece in arrivalSizes(of: stream.count, seed: data[0]) {
            let end = min(offset + piece, stream.count)
            session.received(stream[offset..<end])
            offset = end
            if try session.handshake() { fatalError("the handshake completed with an untrusted server") }
            _ = session.takeOutgoing()
        }
        session.receivedEnd()
        if try session.handshake() { fatalError("the handshake completed with an untrusted server") }
        fatalError("the session still waits after the server closed the connection")
    } catch {
        if error.description.isEmpty { fatalError("a failure without words") }
        if error.description.contains("the client") { fatalError("a client's failure names its peer the client: \(error)") }
    }
    return 0
}

/// The system's trust: no certificate passes without the server's key, which no input holds.
private let trust: TLSContext = {
    do { return try TLSContext.shared(.system) } catch { fatalError("\(error)") }
}()
