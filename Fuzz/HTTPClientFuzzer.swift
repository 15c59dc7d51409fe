// libFuzzer entry point for HTTP1's client connection machine: a hostile server over one kept-alive connection.
//
// Built by Scripts/fuzz.sh together with Sources/HTTP1 into one module named HTTP1, so its internals are reachable.
// It is not part of the Swift package.
//
// Byte 0 picks how the rest arrives (Fuzz/Arrivals.swift) and, by its bit 7, whether the requests are HEADs. The rest
// is what a server sends on one connection, after which it closes. The harness sends a request, feeds the bytes, and
// sends the next request each time an answer keeps the connection, up to `exchanges`. A finding is a crash, or one of
// these broken (each a trap with its reason):
//   - a request goes out only on an idle connection, and every other `send` is refused (`busy`), sending nothing;
//   - an answer that keeps the connection leaves it idle; any other outcome leaves it closed;
//   - at the close, an exchange under way ends (an answer, a failure or a retry, never a wait);
//   - a retry comes only for a kept connection before any byte of its answer;
//   - an answer's body is at most the limit, its status 200 to 599.

/// The body limit the harness reads with: small, so that inputs reach it.
private let limit = 1024
/// Exchanges on the one connection, at most.
private let exchanges = 16
private let request = Array("GET /token HTTP/1.1\r\nHost: fuzz\r\n\r\n".utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let stream = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let method = data[0] & 0x80 == 0 ? "GET" : "HEAD"
    var machine = ClientConnectionMachine()
    var offset = 0
    var sizes = arrivalSizes(of: stream.count, seed: data[0])[...]
    var started = 0
    var answeredBytes = false
    while started < exchanges {
        guard machine.send(request, method: method, bodyLimit: limit) == .write(request) else {
            fatalError("an idle connection did not send the request")
        }
        started += 1
        answeredBytes = false
        machine.sent()
        if machine.send(request, method: method, bodyLimit: limit) != .busy { fatalError("a second request went out during an exchange") }
        var outcome = ClientConnectionMachine.Action.wait
        while outcome == .wait, let next = sizes.popFirst() {
            let end = min(offset + next, stream.count)
            answeredBytes = answeredBytes || end > offset
            outcome = machine.received(stream[offset..<end])
            offset = end
        }
        if outcome == .wait {
            outcome = machine.closed()
            if outcome == .wait { fatalError("still waiting after the close") }
            if outcome == .retry && (started == 1 || answeredBytes) {
                fatalError("a retry for \(started == 1 ? "a new connection" : "an exchange whose answer had begun")")
            }
        }
        guard check(outcome, machine) else { return 0 }
    }
    return 0
}

/// Checks the outcome of one exchange and the phase it left; whether the connection carries another.
private func check(_ outcome: ClientConnectionMachine.Action, _ machine: ClientConnectionMachine) -> Bool {
    var copy = machine
    switch outcome {
    case .answer(let reply, keepAlive: true):
        checkReply(reply)
        if !machine.isIdle { fatalError("an answer that keeps the connection did not leave it idle") }
        return true
    case .answer(let reply, keepAlive: false):
        checkReply(reply)
    case .fail, .retry:
        break
    case .wait, .write, .busy, .close:
        fatalError("an exchange ended with \(outcome)")
    }
    if copy.send(request, method: "GET", bodyLimit: limit) != .busy { fatalError("a closed connection sent a request") }
    return false
}

private func checkReply(_ reply: HTTPReply) {
    if reply.body.count > limit { fatalError("accepted a body of \(reply.body.count) bytes, over the limit of \(limit)") }
    if !(200...599).contains(reply.status) { fatalError("accepted the status \(reply.status) as the answer") }
}
