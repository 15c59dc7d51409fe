/// One frame of a user's video on the wire (`Docs/hub-protocol.md`, "Video frames"): a 7-byte header — version, the
/// sender's uid (big-endian; the hub writes it, whatever the sender put there), columns, rows — then the cells,
/// run-length encoded.
public struct HubVideoFrame: Equatable, Sendable {
    /// One cell's colour.
    public struct Color: Hashable, Sendable {
        public var red: UInt8, green: UInt8, blue: UInt8
        public init(red: UInt8, green: UInt8, blue: UInt8) {
            (self.red, self.green, self.blue) = (red, green, blue)
        }
    }

    /// Who sent it: 0 from a client, the sender's uid once the hub has stamped it.
    public var uid: UInt32
    public let columns: Int
    public let rows: Int
    /// `columns` × `rows` colours, row by row from the top left.
    public let cells: [Color]

    /// A frame of `cells`, which must hold `columns` × `rows` colours (both 1…255).
    public init?(uid: UInt32 = 0, columns: Int, rows: Int, cells: [Color]) {
        guard (1...255).contains(columns), (1...255).contains(rows), cells.count == columns * rows else { return nil }
        (self.uid, self.columns, self.rows, self.cells) = (uid, columns, rows, cells)
    }

    public static let version: UInt8 = 1
    public static let headerBytes = 7
    /// The size a client sends its local tile in.
    public static let sentColumns = 32
    public static let sentRows = 18
    /// The largest frame the hub forwards and a client reads: 32×18 cells of 4 bytes each (every run of one), with
    /// the header, fit.
    public static let maxBytes = 4096
    /// Frames a client may send each second, on average; more are dropped, not forwarded.
    public static let maxPerSecond = 10

    /// The frame on the wire: header, then runs of (count, red, green, blue), no run longer than 255.
    public var encoded: [UInt8] {
        var bytes = [Self.version, UInt8(truncatingIfNeeded: uid >> 24), UInt8(truncatingIfNeeded: uid >> 16),
                     UInt8(truncatingIfNeeded: uid >> 8), UInt8(truncatingIfNeeded: uid), UInt8(columns), UInt8(rows)]
        bytes.reserveCapacity(Self.headerBytes + 4 * 64)
        var index = 0
        while index < cells.count {
            let color = cells[index]
            var run = 1
            while run < 255, index + run < cells.count, cells[index + run] == color { run += 1 }
            bytes += [UInt8(run), color.red, color.green, color.blue]
            index += run
        }
        return bytes
    }

    /// Reads a frame as a client receives it, refusing anything `check` refuses.
    public init(decoding bytes: [UInt8]) throws(HubProtocolError) {
        try Self.check(bytes)
        let columns = Int(bytes[5]), rows = Int(bytes[6])
        // Filled in place (a client reads every frame of every other user); `check` made sure the runs fit.
        let cells = [Color](unsafeUninitializedCapacity: columns * rows) { buffer, filled in
            for offset in stride(from: Self.headerBytes, to: bytes.count, by: 4) {
                let run = Int(bytes[offset])
                buffer.baseAddress!.advanced(by: filled)
                    .initialize(repeating: Color(red: bytes[offset + 1], green: bytes[offset + 2], blue: bytes[offset + 3]), count: run)
                filled += run
            }
        }
        (self.uid, self.columns, self.rows, self.cells) = (Self.stampedUid(of: bytes) ?? 0, columns, rows, cells)
    }

    /// Checks that `bytes` are a frame the format allows, without keeping its cells (what the hub does before it
    /// forwards one): at most `maxBytes`, version 1, a size above 0, runs of 1…255 that add up to columns × rows, no
    /// bytes left over.
    public static func check(_ bytes: [UInt8]) throws(HubProtocolError) {
        guard bytes.count <= maxBytes else {
            throw HubProtocolError("a video frame of \(bytes.count) bytes, over \(maxBytes)")
        }
        guard bytes.count >= headerBytes, bytes[0] == version, bytes[5] > 0, bytes[6] > 0 else {
            throw HubProtocolError("not a version \(version) video frame: its header is not version, uid, columns, rows (columns and rows above 0)")
        }
        let columns = Int(bytes[5]), rows = Int(bytes[6])
        let body = bytes.count - headerBytes
        guard body % 4 == 0 else { throw HubProtocolError("a video frame's runs are 4 bytes each; \(body) bytes of runs is not") }
        var cells = 0
        for offset in stride(from: headerBytes, to: bytes.count, by: 4) {
            let run = Int(bytes[offset])
            guard run > 0 else { throw HubProtocolError("a video frame's run of 0 cells at byte \(offset)") }
            cells += run
            guard cells <= columns * rows else { throw HubProtocolError("a video frame's runs hold more than its \(columns)×\(rows) cells") }
        }
        guard cells == columns * rows else {
            throw HubProtocolError("a video frame's runs hold \(cells) cells, not its \(columns)×\(rows)")
        }
    }

    /// The uid in `frame`'s header, the hub's stamp of who sent it; nil when it has no valid header.
    public static func stampedUid(of frame: [UInt8]) -> UInt32? {
        guard frame.count >= headerBytes, frame[0] == version, frame[5] > 0, frame[6] > 0 else { return nil }
        return UInt32(frame[1]) << 24 | UInt32(frame[2]) << 16 | UInt32(frame[3]) << 8 | UInt32(frame[4])
    }

    /// `frame` with `uid` written into its header: the hub's stamp of who sent it.
    public static func stamped(_ frame: [UInt8], uid: UInt32) -> [UInt8] {
        var frame = frame
        frame[1] = UInt8(truncatingIfNeeded: uid >> 24)
        frame[2] = UInt8(truncatingIfNeeded: uid >> 16)
        frame[3] = UInt8(truncatingIfNeeded: uid >> 8)
        frame[4] = UInt8(truncatingIfNeeded: uid)
        return frame
    }
}
