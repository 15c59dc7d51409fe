/// A mistake a token server can make on purpose (`--misconfigure`, the call screen's `x`), so that a user sees what
/// the SDK answers to it. The raw value is the word the command line and the screen use.
public enum TokenMistake: String, Sendable, CaseIterable {
    /// Signed for another uid (or user account) than asked for.
    case wrongUid = "wrong-uid"
    /// Signed for another channel than asked for.
    case wrongChannel = "wrong-channel"
    /// Signed for another App ID, with the server's own certificate.
    case wrongApp = "wrong-app"
    /// The token the server handed out before for the same request, again: its expiry does not move.
    case stale
    /// Already expired when it is handed out.
    case expired

    /// What the server hands out, in a few words: "a token for another uid".
    public var summary: String {
        switch self {
        case .wrongUid: "a token for another uid"
        case .wrongChannel: "a token for another channel"
        case .wrongApp: "a token for another App ID"
        case .stale: "the token it handed out before"
        case .expired: "a token that has already expired"
        }
    }

    /// The one after `mistake` for a key that cycles: none, each kind in turn, none again.
    public static func cycled(after mistake: TokenMistake?) -> TokenMistake? {
        guard let mistake else { return allCases.first }
        let index = allCases.firstIndex(of: mistake)! + 1
        return index < allCases.count ? allCases[index] : nil
    }
}
