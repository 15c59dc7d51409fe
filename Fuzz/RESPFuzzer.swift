// libFuzzer entry point for the RESP reader the hub's channel leases read Redis with (serve --redis).
//
// Built by Scripts/fuzz.sh together with Sources/RedisClient/RESP*.swift into one module named RedisClient. Byte 0
// picks how the rest arrives (all at once, or in pieces of 1...8 bytes); the rest is what a hostile Redis sends.
// Every value the reader returns must stay within its limits, and an error must end the reading.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let split = Int(data[0] % 9)
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    var limits = RESPReader.Limits()
    (limits.maxLineBytes, limits.maxBulkBytes, limits.maxElements, limits.maxDepth, limits.maxValueBytes) = (64, 256, 16, 3, 2048)
    var reader = RESPReader(limits: limits)
    var offset = 0
    while offset < bytes.count {
        let end = split == 0 ? bytes.count : min(bytes.count, offset + split)
        reader.append(bytes[offset..<end])
        offset = end
        while true {
            do {
                guard let value = try reader.next() else { break }
                check(value, depth: 0, limits: limits)
            } catch {
                return 0
            }
        }
    }
    return 0
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
