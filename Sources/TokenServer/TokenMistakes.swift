import AccessToken
import Synchronization

/// The mistake a server's tokens carry on purpose, changed while it runs, and the last sound token each caller got:
/// a caller's first token is always sound, so a join works and the next token it asks for carries the mistake.
public final class TokenMistakes: Sendable {
    /// Who a token is for: the requests of one caller ask for the same.
    struct Audience: Hashable {
        let channel: String
        let user: RTCUser
        let role: RTCRole
    }

    private struct State {
        var mistake: TokenMistake?
        var handedOut: [Audience: String] = [:]
    }

    /// Callers remembered at most; past this an arbitrary one is forgotten (its next token is sound again).
    static let rememberedCallers = 4096

    private let state: Mutex<State>

    public init(_ mistake: TokenMistake? = nil) {
        state = Mutex(State(mistake: mistake))
    }

    /// The mistake tokens carry now; nil when they are sound.
    public var mistake: TokenMistake? {
        get { state.withLock { $0.mistake } }
        set { state.withLock { $0.mistake = newValue } }
    }

    /// Cycles the mistake (none, each kind, none again) and returns the new one.
    public func cycle() -> TokenMistake? {
        state.withLock { state in
            state.mistake = TokenMistake.cycled(after: state.mistake)
            return state.mistake
        }
    }

    /// A token for `audience`: `build(nil)` for its first and whenever no mistake is set (remembered for `stale`),
    /// the sound token handed out before for `stale`, else `build(mistake)`.
    func token<E: Error>(for audience: Audience, build: (TokenMistake?) throws(E) -> String) throws(E) -> String {
        let (mistake, previous) = state.withLock { ($0.mistake, $0.handedOut[audience]) }
        switch (mistake, previous) {
        case (.stale?, let previous?):
            return previous
        case (let mistake?, _?):
            return try build(mistake)
        default:
            let sound = try build(nil)
            state.withLock { state in
                if state.handedOut[audience] == nil, state.handedOut.count >= Self.rememberedCallers {
                    state.handedOut.remove(at: state.handedOut.startIndex)
                }
                state.handedOut[audience] = sound
            }
            return sound
        }
    }
}
