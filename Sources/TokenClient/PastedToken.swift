import AccessToken
import Foundation

/// A token a person pasted (a temporary token from Agora Console, say), read once: the bare string and its parse.
public struct PastedToken: Sendable, Equatable {
    public let token: String
    public let parsed: AgoraToken

    /// The longest paste read; real tokens are a few hundred characters.
    public static let maximumLength = 4096

    /// Reads `text` as a person pasted it: whitespace at either end is dropped (a trailing newline), anything else
    /// that is not one bare, unexpired token that can join is refused with what is wrong.
    public init(_ text: String, unixTime: Double) throws(PastedTokenError) {
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw .empty }
        guard token.utf8.count <= Self.maximumLength else { throw .tooLong(characters: token.count) }
        if token.lowercased().hasPrefix("bearer ") { throw .bearerPrefix }
        if let quote = token.first, quote == "\"" || quote == "'" { throw .quoted }
        if token.contains(where: \.isWhitespace) { throw .whitespaceInside }
        if AgoraID.isValid(token) { throw .hexIdentifier }
        do {
            parsed = try AgoraToken(parsing: token)
        } catch {
            throw .notAToken(error)
        }
        do throws(TokenError) {
            try parsed.validate(TokenCheck(), now: Int64(unixTime.rounded(.down)))
        } catch {
            throw .unusable(error)
        }
        self.token = token
    }

    /// The token a server's whole answer is when it is one token alone, 006 or 007 (white space at either end, as a
    /// trailing newline, dropped), whatever its content type says; nil for anything else.
    public static func alone(in body: [UInt8]) -> String? {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        guard let first = body.firstIndex(where: { !isSpace($0) }), let last = body.lastIndex(where: { !isSpace($0) }) else { return nil }
        let token = body[first...last]
        guard token.count <= maximumLength, token.starts(with: AccessToken2.version.utf8) || token.starts(with: AccessToken006.version.utf8),
              token.allSatisfy(base64Bytes.contains) else { return nil }
        return String(decoding: token, as: UTF8.self)
    }

    /// What a token is written in: its version's digits, a 006 App ID's hex and base64.
    public static let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
    private static let base64Bytes = Set(alphabet.utf8)

    /// Unix time after which it no longer admits a join.
    public var expiresAt: Int64 { parsed.joinDeadline }

    /// Why the network would refuse it for `request` (another App ID, channel or uid), in words; nil when it would not.
    public func mismatch(with request: TokenRequest, unixTime: Double) -> String? {
        do throws(TokenError) {
            try parsed.validate(TokenCheck(appID: request.appID, channel: request.channel, user: request.user),
                                now: Int64(unixTime.rounded(.down)))
            return nil
        } catch {
            return error.description
        }
    }

    /// What a person sees of a pasted text: its start and its length, `007eJxT…(139 chars)`, never the whole token.
    public static func abbreviated(_ text: some StringProtocol, ellipsis: String = "…") -> String {
        text.count <= shownPrefix ? String(text) : "\(text.prefix(shownPrefix))\(ellipsis)(\(text.count) chars)"
    }

    private static let shownPrefix = 7

    /// Agora's channel name and uid, as written in the token (007 only: 006 keeps checksums of them).
    public var channel: String? {
        if case .accessToken2(let token) = parsed { token.rtc?.channel } else { nil }
    }

    public var uid: String? {
        if case .accessToken2(let token) = parsed { token.rtc?.uid } else { nil }
    }
}

/// Why a pasted text is not a token to join with; the words show at most the start of what was pasted.
public enum PastedTokenError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case tooLong(characters: Int)
    case bearerPrefix
    case quoted
    case whitespaceInside
    /// 32 hex characters: an App ID or an App Certificate.
    case hexIdentifier
    case notAToken(TokenError)
    /// It reads, but cannot join: expired, or no RTC join privilege.
    case unusable(TokenError)

    public var description: String {
        switch self {
        case .empty:
            "no token was given; paste the whole token (007… or 006…)"
        case .tooLong(let count):
            "\(count) characters is not a token (at most \(PastedToken.maximumLength) are read); paste the token alone"
        case .bearerPrefix:
            "it starts with \"Bearer \": paste the token alone, without the Authorization scheme"
        case .quoted:
            "it is in quotes; paste the token without them"
        case .whitespaceInside:
            "it has a space or a line break inside; copy the token again as one line"
        case .hexIdentifier:
            "this is 32 hex characters, an App ID or an App Certificate, not a token; paste a token (007… or 006…)"
        case .notAToken(let error):
            "not a token: \(error)"
        case .unusable(let error):
            "it cannot join: \(error)"
        }
    }
}
