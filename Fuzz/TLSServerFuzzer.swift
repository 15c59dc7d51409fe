// libFuzzer entry point for the server's side of the TLS record path: what a hostile client sends `serve` over
// https://, its ClientHello and after, read through the `Wire` a server's connection reads with.
//
// Built by Scripts/fuzz.sh together with Sources/TLS/TLSSession.swift and Sources/TLS/Wire.swift into one module named
// TLS, on Sockets and PrintableText as libraries. It is not part of the Swift package. The wire's socket is one end of
// a socketpair (no network); the harness writes the client's bytes into the other end and drains what the server
// answers. The server's certificate and key are the PEM files that TLSSERVER_FUZZ_CERT and TLSSERVER_FUZZ_KEY name
// (fuzz.sh makes them with openssl).
//
// Byte 0 seeds how the rest arrives (Fuzz/Arrivals.swift); the rest is the client's side of the connection, after
// which it closes. A finding is a crash, or one of these broken (each a trap with its reason):
//   - the handshake never completes: the client's Finished (and in TLS 1.2 its key exchange) must be made from the
//     server's random and key share, new in every run, which no fixed input holds; nor can it resume a session,
//     since no run hands out a ticket before the handshake is done;
//   - no plaintext comes out, and the wire never ends as if it had;
//   - the wire refuses, by the arrival after the close at the latest, with a `TLSFailure` in printable words that
//     name the peer as the client, never as the server.
//
// With TLSSERVER_FUZZ_SEEDS naming a folder, it first writes seeds there (fuzz.sh runs it so once with -runs=0): the
// ClientHellos of tokencall's own client session (TLS 1.3 and 1.2, with and without SNI), and whole client sides of
// handshakes that completed against a server session of this context, which a new server's random makes stale.

import CCrypto
import Glibc
import PrintableText
import Sockets

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let stream = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    var pair: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { fatalError("socketpair: \(String(cString: strerror(errno)))") }
    defer { close(pair[0]); close(pair[1]) }
    let socket = Socket(fd: pair[0]), client = Socket(fd: pair[1])
    socket.makeNonBlocking()
    client.makeNonBlocking()
    let wire = Wire(socket, tls: try! TLSSession(serving: server))
    var scratch = [UInt8](repeating: 0, count: Socket.receiveSize)
    var answer = [UInt8](repeating: 0, count: 64 * 1024)
    var answered = 0

    /// True once the wire refused; traps on an arrival a handshake that cannot finish must not bring.
    func check(_ arrival: Wire.Arrival) -> Bool {
        _ = wire.flush()
        while case let count = recv(client.fd, &answer, answer.count, 0), count > 0 { answered += count }
        reached(128 + answered % 128)
        switch arrival {
        case .nothing: return false
        case .secured: fatalError("the handshake completed with a client that cannot know the server's key")
        case .data: fatalError("plaintext before the handshake")
        case .ended: fatalError("the wire ended as if the handshake had completed")
        case .refused(let failure):
            let words = failure.description
            if words.isEmpty { fatalError("a failure without words") }
            if words != words.escapedForPrinting { fatalError("a failure whose words are not printable: \(words.escapedForPrinting)") }
            if words.contains("the server") { fatalError("a server's failure names its peer the server: \(words)") }
            reached(Int(words.utf8.reduce(2_166_136_261 as UInt32) { ($0 ^ UInt32($1)) &* 16_777_619 } % 128))
            return true
        }
    }

    var offset = 0
    for piece in arrivalSizes(of: stream.count, seed: data[0]) {
        let end = min(offset + piece, stream.count)
        guard client.send(Array(stream[offset..<end])) else { fatalError("the socketpair took no bytes") }
        offset = end
        if check(wire.receive(scratch: &scratch)) { return 0 }
    }
    shutdown(client.fd, Int32(SHUT_WR))
    if check(wire.receive(scratch: &scratch)) { return 0 }
    fatalError("the wire still waits after the client closed the connection")
}

// OpenSSL is not instrumented, so what it does is invisible to libFuzzer but for two outcomes, which these counters
// (libFuzzer's extra counters) make features of: the refusal's words (hashed into 0..<128) and how many bytes the server
// has answered (mod 128, from 128): its flight's length tells what it chose (the version, cipher, group, a retry).
private typealias Eight = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
@section("__libfuzzer_extra_counters") @used nonisolated(unsafe) private var outcomes: (Eight, Eight, Eight, Eight) =
    ((0, 0, 0, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 0, 0, 0))

private func reached(_ outcome: Int) {
    withUnsafeMutableBytes(of: &outcomes) { $0[outcome] = 1 }
}

/// A path from the environment, else the file under .build/fuzz/tlsserver/ that fuzz.sh makes.
private func file(_ variable: String, else name: String) -> String {
    getenv(variable).map { String(cString: $0) } ?? ".build/fuzz/tlsserver/\(name)"
}

/// The server's context, on the test certificate and key.
private let server: TLSContext = {
    let certificate = file("TLSSERVER_FUZZ_CERT", else: "server.pem"), key = file("TLSSERVER_FUZZ_KEY", else: "server.key")
    do { return try TLSContext(certificateFile: certificate, keyFile: key) } catch {
        fatalError("\(error) (Scripts/fuzz.sh makes them; TLSSERVER_FUZZ_CERT and TLSSERVER_FUZZ_KEY name others)")
    }
}()

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    if let folder = getenv("TLSSERVER_FUZZ_SEEDS").map({ String(cString: $0) }) { writeSeeds(into: folder) }
    return 0
}

/// The client's sides, each under arrival seeds 0 (a byte at a time), 3 (up to 64 bytes) and 5 (up to 4096).
private func writeSeeds(into folder: String) {
    let certificate = file("TLSSERVER_FUZZ_CERT", else: "server.pem")
    do throws(TLSFailure) {
        for (name, maximum) in [("13", 0), ("12", TLS1_2_VERSION)] {
            for host in ["localhost", "127.0.0.1"] {
                let context = try TLSContext(trust: .file(certificate))
                if maximum != 0 { SSL_CTX_ctrl(context.context, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(maximum), nil) }
                let hello = try TLSSession(context: context, host: host)
                _ = try hello.handshake()
                save(hello.takeOutgoing(), as: "hello-\(name)-\(host)", in: folder)
                save(try whole(context: context, host: host), as: "whole-\(name)-\(host)", in: folder)
            }
        }
    } catch {
        fatalError("cannot make the seeds: \(error)")
    }
}

/// Everything a client sends in a handshake with a server session of `server` that completes, then a request.
private func whole(context: TLSContext, host: String) throws(TLSFailure) -> [UInt8] {
    let client = try TLSSession(context: context, host: host), peer = try TLSSession(serving: server)
    var sent: [UInt8] = []
    var done = (client: false, server: false)
    for _ in 0..<10 where !(done.client && done.server) {
        if !done.client { done.client = try client.handshake() }
        let flight = client.takeOutgoing()
        sent += flight
        peer.received(flight[...])
        if !done.server { done.server = try peer.handshake() }
        client.received(peer.takeOutgoing()[...])
    }
    guard done.client, done.server else { throw .setup("the seed's handshake did not complete") }
    try client.write(Array("GET /ping HTTP/1.1\r\nHost: \(host)\r\n\r\n".utf8))
    return sent + client.takeOutgoing()
}

private func save(_ bytes: [UInt8], as name: String, in folder: String) {
    for seed: UInt8 in [0, 3, 5] {
        let path = "\(folder)/\(name)-\(seed)"
        guard let file = fopen(path, "w") else { fatalError("cannot write \(path): \(String(cString: strerror(errno)))") }
        let content = [seed] + bytes
        guard fwrite(content, 1, content.count, file) == content.count else { fatalError("cannot write \(path)") }
        fclose(file)
    }
}
