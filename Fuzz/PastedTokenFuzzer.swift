// libFuzzer entry point for `PastedToken`, which reads what a person pastes (`join --token`, the `p` field).
//
// Built by Scripts/fuzz.sh together with Sources/TokenClient/PastedToken.swift and TokenRequest.swift into one module
// named TokenClient. The whole input is the pasted text. A finding is a crash, a sanitizer report, or a broken
// promise: an accepted token that is not one bare unexpired string of at most 4096 bytes, or an error or an
// abbreviation that repeats a long paste. The same bytes are also read as a server's whole answer
// (`PastedToken.alone(in:)`): a token found there must be those bytes without the white space at their ends, 006… or
// 007… in base64's alphabet. The searches for the paste are of bytes: Foundation's `contains(_:)` (which
// PastedToken.swift's import puts in reach here) traps on Linux for text with NULs and a non-ASCII character searched
// for a longer run of NULs, and that trap was the harness's, not PastedToken's.

import AccessToken

// Before every fixture token's expiry, so that the seeds reach the accepted path.
private let now: Double = 1_000_000

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let alone = PastedToken.alone(in: bytes) {
        let trimmed = bytes.drop { [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D].contains($0) }.reversed().drop { [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D].contains($0) }
        if Array(alone.utf8) != Array(trimmed.reversed()) { fatalError("the token alone is not the body without its white space") }
        if !(alone.utf8.starts(with: "006".utf8) || alone.utf8.starts(with: "007".utf8)) || alone.utf8.count > PastedToken.maximumLength
            || !alone.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || [0x2B, 0x2F, 0x3D].contains($0) }) {
            fatalError("a token alone that is not 006… or 007… in base64's alphabet, of at most \(PastedToken.maximumLength) bytes")
        }
    }
    let text = String(decoding: bytes, as: UTF8.self)
    let shown = PastedToken.abbreviated(text)
    if text.count > 16, holds(shown, text) { fatalError("the abbreviation repeats the whole paste") }
    do {
        let token = try PastedToken(text, unixTime: now)
        if token.token.isEmpty || token.token.utf8.count > PastedToken.maximumLength || token.token.contains(where: \.isWhitespace) {
            fatalError("accepted a token that is empty, too long or holds whitespace")
        }
        if token.expiresAt <= Int64(now) { fatalError("accepted a token that cannot join now") }
        _ = token.mismatch(with: TokenRequest(channel: "test", user: .uid(42), appID: "970CA35de60c44645bbae8a215061b33"), unixTime: now)
        _ = (token.channel, token.uid)
    } catch {
        let words = error.description
        if text.count > 16, holds(words, text) { fatalError("the error repeats the whole paste") }
    }
    return 0
}

/// Whether `piece`'s bytes appear in `text`'s.
private func holds(_ text: String, _ piece: String) -> Bool {
    text.utf8.firstRange(of: piece.utf8) != nil
}
