// libFuzzer entry point for the RESP reader the hub's channel leases read Redis with (serve --redis).
//
// Built by Scripts/fuzz.sh together with Sources/RedisClient/RESP*.swift and the sans-I/O RedisMachine (with
// RedisAddress and RedisError) into one module named RedisClient. Byte 0 picks how the rest arrives (all at once, or
// in pieces of 1...8 bytes); the rest is what a hostile Redis sends. Every value the reader returns must stay within
// its limits, and an error must end the reading. The same bytes answer a RedisMachine with a password and requests of
// 1...3 commands waiting (byte 0 says how many): each request is answered once, with as many answers as commands,
// in order; a failure fails every request still waiting and drops the connection; no word shows the password.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let split = Int(data[0] % 9)
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    var limits = RESPReader.Limits()
    (limits.maxLineBytes, limits.maxBulkBytes, limits.maxElements, limits.maxDepth, limits.maxValueBytes) = (64, 256, 16, 3, 2048)
    var reader = RESPReader(limits: limits)
    var offset = 0
    reading: while offset < bytes.count {
        let end = split == 0 ? bytes.count : min(bytes.count, offset + split)
        reader.append(bytes[offset..<end])
        offset = end
        while true {
            do {
                guard let value = try reader.next() else { break }
                check(value, depth: 0, limits: limits)
            } catch {
                break reading
            }
        }
    }
    answer(bytes, split: split, requests: Int(data[0] / 9 % 8) + 1)
    return 0
}

private let password = "fuzz-secret"
private let address = try! RedisAddress(parsing: "redis://:\(password)@127.0.0.1:6390/3")

/// `bytes` as a server's answers to `requests` requests of 1...3 commands, after AUTH and SELECT.
private func answer(_ bytes: [UInt8], split: Int, requests: Int) {
    final class Outcomes { var results: [Int: Result<[RESPValue], RedisError>] = [:]; var disconnected = false }
    let outcomes = Outcomes()
    let start = ContinuousClock.now
    var machine = RedisMachine(address: address, deadline: .seconds(1))
    func perform(_ actions: [RedisMachine.Action]) {
        for action in actions {
            switch action {
            case .connect: break
            case .disconnect: outcomes.disconnected = true
            case .answer(let completion, let result): completion(result)
            }
        }
    }
    let sizes = (0..<requests).map { $0 % 3 + 1 }
    for (index, size) in sizes.enumerated() {
        perform(machine.ask(Array(repeating: ["GET", "k"], count: size), now: start) { result in
            precondition(outcomes.results[index] == nil, "a request answered twice")
            outcomes.results[index] = result
        })
    }
    machine.connected(attempt: 1)
    _ = machine.takeUnsent()
    var offset = 0
    while offset < bytes.count, !outcomes.disconnected {
        let end = split == 0 ? bytes.count : min(bytes.count, offset + split)
        perform(machine.received(bytes[offset..<end]))
        offset = end
    }
    var failed = false
    for index in sizes.indices {
        switch outcomes.results[index] {
        case nil:
            precondition(!failed && !outcomes.disconnected, "a request left waiting after a failure")
        case .success(let answers)?:
            precondition(!failed && answers.count == sizes[index], "answers out of order or miscounted")
        case .failure(let error)?:
            failed = true
            precondition(!error.description.contains(password), "the password in \(error)")
        }
    }
    precondition(!failed || outcomes.disconnected, "a failure without dropping the connection")
    precondition(!outcomes.disconnected || outcomes.results.count == requests, "dropped with requests still waiting")
    precondition((machine.nextDeadline == nil) == (outcomes.results.count == requests))
}

private func check(_ value: RESPValue, depth: Int, limits: RESPReader.Limits) {
    _ = value.text
    _ = value.isNull
    switch value {
    case .bulk(let bytes?): precondition(bytes.count <= limits.maxBulkBytes)
    case .array(let elements?):
        precondition(elements.count <= limits.maxElements && depth <= limits.maxDepth)
        for element in elements { check(element, depth: depth + 1, limits: limits) }
    case .simple(let text), .error(let text): precondition(text.utf8.count <= limits.maxLineBytes * 3)
    default: break
    }
}
