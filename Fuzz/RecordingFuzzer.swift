// libFuzzer entry point for `Recording.read`, which reads a recording file that `tokencall replay` is given.
//
// Built by Scripts/fuzz.sh together with Sources/Recording/*.swift into one module named Recording. The whole input is
// the file. A finding is a crash, a sanitizer report, or a broken promise: an accepted recording must be one the
// recorder can write (the reader compares JSON values, so spacing and member order may differ), so writing its header
// and events again and reading that gives the same recording, and none of its lines is over the line limit.

import CallSession

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let recording = try? Recording.read(bytes) else { return 0 }
    let lines = [recording.header.line] + recording.events.map(\.recordedLine)
    if lines.contains(where: { $0.utf8.count > Recording.lineLimit }) { fatalError("an accepted line is over the limit") }
    let written = Array((lines.joined(separator: "\n") + "\n").utf8)
    guard let again = try? Recording.read(written), again == recording else { fatalError("an accepted recording does not read back the same") }
    return 0
}
