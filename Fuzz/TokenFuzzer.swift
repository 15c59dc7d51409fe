import Foundation
// libFuzzer entry point for the AccessToken module.
//
// Built by Scripts/fuzz.sh together with every file of Sources/AccessToken/ into one module
// named AccessToken, so the internal API (`AccessToken2(content:)`, `Zlib`, `Base64`) is reachable.
// It is not part of the Swift package: `swift build` never sees it.
//
// The first input byte picks a mode (only its low two bits count, so every byte value is useful):
//   0  the rest is a token string            -> AgoraToken(parsing:)
//   1  the rest is inflated 007 content      -> AccessToken2(content:)
//   2  the rest is inflated 007 content, wrapped as "007" + base64(zlib(rest))
//                                            -> AccessToken2(parsing:)
//   3  the rest is the base64 body of a 006 token, after "006" + a 32-character App ID
//                                            -> AccessToken006(parsing:)
// Every token that parses is then validated, signature-checked and rebuilt (see `exercise`).
//
// Thrown `TokenError`s are the expected outcome for most inputs. Only a crash (trap, precondition,
// overflow), a sanitizer report, a timeout or an out-of-memory counts as a finding.

// The official test fixtures (Tests/AccessTokenTests/Fixtures/accesstoken2.json). Checking against
// them lets inputs derived from the seeds get past the App ID, signature and CRC checks.
private let fixtureAppID = "970CA35de60c44645bbae8a215061b33"
private let fixtureCertificate = "5CFd2fd1755d40ecb72977518be15d3b"
private let fixtureChannel = "7d72365eb983485397e3e3f9d460bdda"
private let fixtureUID: UInt32 = 2_882_341_273
private let fixtureIssuedAt: Int64 = 1_111_111

/// Join times every parsed token is validated at: before issue, at issue, inside a 600 s lifetime,
/// long after, and the two extremes (they probe the `now - expiry` arithmetic).
private let instants: [Int64] = [0, fixtureIssuedAt, fixtureIssuedAt + 300, 2_000_000_000, Int64.max, Int64.min]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let mode = data[0] & 3
    let rest = UnsafeBufferPointer(start: data + 1, count: size - 1)
    switch mode {
    case 0: fuzzTokenString(rest)
    case 1: fuzzContent(rest)
    case 2: fuzzWrapped007(rest)
    default: fuzzBody006(rest)
    }
    return 0
}

/// Mode 0: any text, through the version dispatch a caller of the library uses.
private func fuzzTokenString(_ bytes: UnsafeBufferPointer<UInt8>) {
    let text = String(decoding: bytes, as: UTF8.self)
    exerciseInspection(text)
    guard let token = try? AgoraToken(parsing: text) else { return }
    switch token {
    case .accessToken2(let token2): exercise(token2)
    case .accessToken006(let token006): exercise(token006)
    }
    _ = token.appID
    for now in instants {
        _ = try? token.validate(TokenCheck(), now: now)
        _ = try? token.validate(fullCheck, now: now)
    }
}

/// Mode 1: the inflated bytes straight into the field reader, skipping base64 and zlib.
private func fuzzContent(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let token = try? AccessToken2(content: Array(bytes)) else { return }
    exercise(token)
}

/// Mode 2: the same bytes as mode 1, framed as a real "007" token so the whole parse path runs.
private func fuzzWrapped007(_ bytes: UnsafeBufferPointer<UInt8>) {
    let text = AccessToken2.version + Base64.encode(Zlib.compress(Array(bytes)))
    exerciseInspection(text)
    guard let token = try? AccessToken2(parsing: text) else { return }
    exercise(token)
}

/// Mode 3: the bytes after a well-formed "006" + App ID prefix; base64 decoding and the 006 reader.
private func fuzzBody006(_ bytes: UnsafeBufferPointer<UInt8>) {
    let text = AccessToken006.version + fixtureAppID + String(decoding: bytes, as: UTF8.self)
    exerciseInspection(text)
    guard let token = try? AccessToken006(parsing: text) else { return }
    exercise(token)
}

/// Checks against the fixtures: App ID, certificate, channel and uid all given.
private let fullCheck = TokenCheck(
    appID: fixtureAppID, appCertificate: fixtureCertificate, channel: fixtureChannel, user: .uid(fixtureUID))

private func exercise(_ token: AccessToken2) {
    _ = token.hasValidSignature(appCertificate: fixtureCertificate)
    _ = token.hasValidSignature(appCertificate: "")
    _ = token.expiresAt
    // A check made of the token's own fields reaches the channel and uid comparisons.
    var ownCheck = TokenCheck(appID: token.appID, channel: token.rtc?.channel)
    if let uid = token.rtc?.uid { ownCheck.user = UInt32(uid).map(RTCUser.uid) ?? .account(uid) }
    let nows = instants + [Int64(token.issuedAt), token.expiresAt - 1, token.expiresAt]
    for now in nows {
        _ = try? token.validate(TokenCheck(), now: now)
        _ = try? token.validate(fullCheck, now: now)
        _ = try? token.validate(ownCheck, now: now)
    }
    // Re-encoding a parsed token exercises the writer on whatever the reader accepted.
    if let rebuilt = try? token.build(appCertificate: fixtureCertificate) {
        _ = try? AccessToken2(parsing: rebuilt)
    }
}

private func exercise(_ token: AccessToken006) {
    _ = token.hasValidSignature(appCertificate: fixtureCertificate, channel: fixtureChannel, user: .uid(fixtureUID))
    _ = token.hasValidSignature(appCertificate: fixtureCertificate, channel: fixtureChannel, user: .uid(0))
    let nows = instants + [Int64(token.messageExpiresAt) - 1, Int64(token.messageExpiresAt)]
    for now in nows {
        _ = try? token.validate(TokenCheck(), now: now)
        _ = try? token.validate(fullCheck, now: now)
        _ = try? token.validate(TokenCheck(appID: token.appID), now: now)
    }
}

// MARK: - Inspection

/// Explains every token text the fuzzer builds (modes 0, 2 and 3), readable or not, as `token inspect`
/// does, with and without checks, and renders the text and JSON forms. `now` stays within what a clock
/// can give (the report's arithmetic assumes a real time).
@inline(never)
func exerciseInspection(_ text: String) {
    let checks = [
        TokenCheck(),
        TokenCheck(appID: "970CA35de60c44645bbae8a215061b33", appCertificate: "5CFd2fd1755d40ecb72977518be15d3b",
                   channel: "7d72365eb983485397e3e3f9d460bdda", user: .uid(2_882_341_273)),
        TokenCheck(channel: "Room", user: .account("0")),
    ]
    for (index, check) in checks.enumerated() {
        let report = TokenReport(inspecting: text, check: check, now: index == 0 ? 1_111_111 : 1_800_000_000)
        _ = report.text
        if index == 1 { _ = try? JSONEncoder().encode(report) }
    }
}
