/// Appends little-endian integers and length-prefixed strings, as Agora's packer does.
struct ByteWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func u32(_ value: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
    }

    mutating func string(_ value: [UInt8]) {
        u16(UInt16(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            u16(UInt16(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// A `map<u16,u32>`, keys ascending.
    mutating func map(_ privileges: PrivilegeMap) {
        u16(UInt16(privileges.count))
        for entry in privileges {
            u16(entry.id)
            u32(entry.value)
        }
    }
}

/// Reads what `ByteWriter` writes; every read names the field it was reading when the bytes ran out.
struct ByteReader {
    let bytes: [UInt8]
    private(set) var offset: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }

    mutating func u16(_ field: String) throws(TokenError) -> UInt16 {
        guard remaining >= 2 else { throw .truncated(field: field) }
        defer { offset += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    mutating func i16(_ field: String) throws(TokenError) -> Int16 {
        Int16(bitPattern: try u16(field))
    }

    mutating func u32(_ field: String) throws(TokenError) -> UInt32 {
        guard remaining >= 4 else { throw .truncated(field: field) }
        defer { offset += 4 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
            | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }

    mutating func bytes(_ field: String) throws(TokenError) -> ArraySlice<UInt8> {
        let count = Int(try u16(field))
        guard remaining >= count else { throw .truncated(field: field) }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func string(_ field: String) throws(TokenError) -> String {
        String(decoding: try bytes(field), as: UTF8.self)
    }

    mutating func map(_ field: String) throws(TokenError) -> PrivilegeMap {
        let count = Int(try u16(field))
        guard remaining >= count * 6 else { throw .truncated(field: field) }
        var privileges = PrivilegeMap()
        for _ in 0..<count {
            let id = try u16(field)
            privileges[id] = try u32(field)
        }
        return privileges
    }
}
