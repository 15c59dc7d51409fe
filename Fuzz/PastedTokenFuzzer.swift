// libFuzzer entry point for `PastedToken`, which reads what a person pastes (`join --token`, the `p` field).
//
// Built by Scripts/fuzz.sh together with Sources/TokenClient/PastedToken.swift and TokenRequest.swift into one module
// named TokenClient. The whole input is the pasted text. A finding is a crash, a sanitizer report, or a broken
// promise: an accepted token that is not one bare unexpired string of at most 4096 bytes, or an error or an
// abbreviation that repeats a long paste. The searches for the paste are of bytes: Foundation's `contains(_:)` (which
// PastedToken.swift's import puts in reach here) traps on Linux for text with NULs and a non-ASCII character searched
// for a longer run of NULs, and that trap was the harness's, not PastedToken's.

import AccessToken

// Before every fixture token's expiry, so that the seeds reach the accepted path.
private let now: Double = 1_000_000

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
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
