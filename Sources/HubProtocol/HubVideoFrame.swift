/// The binary frames that carry video (`Docs/hub-protocol.md`, "Video frames"): a 7-byte header — version, the
/// sender's uid (big-endian; the hub writes it, whatever the sender put there), columns, rows — then the cells,
/// run-length encoded.
public enum HubVideoFrame {
    public static let version: UInt8 = 1
    public static let headerBytes = 7
    /// The largest frame the hub forwards: 32×18 cells of 4 bytes each (every run of one), with the header, fit.
    public static let maxBytes = 4096
    /// Frames a client may send each second, on average; more are dropped, not forwarded.
    public static let maxPerSecond = 10

    /// Whether `frame` starts like a video frame of this version (the hub does not read the cells).
    public static func hasValidHeader(_ frame: [UInt8]) -> Bool {
        frame.count >= headerBytes && frame[0] == version && frame[5] > 0 && frame[6] > 0
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
