// libFuzzer entry point for the JSON parser the token server reads request bodies with.
//
// Built by Scripts/fuzz.sh together with Sources/JSON/*.swift into one module named JSON. It is not part of the
// Swift package. The whole input is a request body: `JSONValue.parse` must return a value or nil for any bytes,
// and whatever it returns must be safe to look at. A finding is a crash, a sanitizer report, a timeout or an
// out-of-memory (deep nesting is the classic one).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let value = JSONValue.parse(Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    visit(value)
    return 0
}

private func visit(_ value: JSONValue) {
    _ = value.kind
    _ = value.string
    switch value {
    case .array(let elements): elements.forEach(visit)
    case .object(let members): members.values.forEach(visit)
    default: break
    }
}
