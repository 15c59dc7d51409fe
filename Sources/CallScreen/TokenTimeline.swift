import CallSession
import ChannelEngine

/// Each token's life along the call's time, and the marks beside it: derived from session events alone (and the
/// unix time each arrives at, as the countdown is), so a replayed call draws the same timeline as the live one.
public struct TokenTimeline: Sendable, Equatable {
    /// How a token stopped being the one in use.
    public enum Ending: Sendable, Equatable {
        /// The next token took over by this method (pasted tokens go in by one too).
        case renewed(RenewMethod)
        /// Another token was accepted without the session saying it renewed (a join after leaving, say).
        case replaced
        /// It ran out, or was expired on purpose (`e`): `requestToken`.
        case expired
        /// The call left the channel, or the connection failed for another reason than the token.
        case left
    }

    /// One token's life, in the call's time.
    public struct Life: Sendable, Equatable {
        /// Counted from 1 in the call.
        public let number: Int
        /// When the engine accepted it.
        public let issuedAt: Duration
        public let expiresAt: Duration
        /// Its expiry as unix time, as the fetch that brought it says: how a renewal finds its token.
        let unixExpiry: Int64
        /// When `tokenPrivilegeWillExpire` came for it.
        public internal(set) var warnedAt: Duration?
        /// How and when it stopped being in use; nil while it is.
        public internal(set) var end: End?
    }

    /// How and when a token stopped being in use.
    public struct End: Sendable, Equatable {
        public let how: Ending
        public let at: Duration
    }

    /// Something that happened beside the tokens, at a time.
    public struct Mark: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            case fetchFailed
            case requestToken
            case connection(AgoraConnectionState)
        }

        public let time: Duration
        public let kind: Kind
    }

    /// How many tokens the timeline keeps, and marks at most.
    public static let lifeLimit = 8
    static let markLimit = 64
    /// The longest lifetime the timeline draws; a token that claims more is drawn with this one.
    static let longestLife: Duration = .seconds(400 * 86_400)

    public private(set) var lives: [Life] = []
    public private(set) var marks: [Mark] = []
    private var accepted = 0
    /// The unix expiry of the token the session handed over last (fetched or pasted).
    private var handedOver: Int64?
    /// A renewal the session reported before the engine accepted its token.
    private var pendingRenewal: RenewMethod?

    public init() {}

    /// Takes `event`, which arrived at unix time `unixNow`.
    public mutating func apply(_ event: SessionEvent, unixNow: Double) {
        let time = event.time
        switch event.kind {
        case .tokenFetched(_, let expiresAt), .tokenPasted(let expiresAt):
            handedOver = expiresAt
        case .tokenRenewed(let method):
            // Reported once the engine has the token (a rejoin), or before its notice comes (renewToken, updateChannel).
            if let newest = lives.last, newest.end == nil, newest.unixExpiry == handedOver {
                if lives.count > 1 { settle(lives.count - 2, method) }
            } else {
                pendingRenewal = method
            }
        case .tokenFetchFailed:
            mark(.fetchFailed, at: time)
        case .engine(.simulatorNotice(.tokenAccepted(let expiresAt, _))):
            accept(expiresAt: expiresAt, at: time, unixNow: unixNow)
        case .engine(.tokenPrivilegeWillExpire):
            if let newest = lives.indices.last, lives[newest].end == nil, lives[newest].warnedAt == nil {
                lives[newest].warnedAt = time
            }
        case .engine(.requestToken):
            mark(.requestToken, at: time)
            end(.expired, at: time)
        case .engine(.connectionStateChanged(let state, let reason)):
            mark(.connection(state), at: time)
            if state == .failed { end(reason == .reasonTokenExpired ? .expired : .left, at: time) }
            if state == .disconnected { end(.left, at: time) }
        default:
            break
        }
    }

    private mutating func accept(expiresAt: Int64, at time: Duration, unixNow: Double) {
        if let newest = lives.last, newest.end == nil, newest.unixExpiry == expiresAt {
            // The same token presented again: its life goes on.
            pendingRenewal = nil
            return
        }
        end(.replaced, at: time)
        let left = Double(expiresAt) - unixNow
        let lifetime: Duration = left.isFinite && left > 0
            ? min(.milliseconds(Int64((min(left, 1e12) * 1000).rounded())), Self.longestLife) : .zero
        accepted += 1
        lives.append(Life(number: accepted, issuedAt: time, expiresAt: time + lifetime, unixExpiry: expiresAt))
        if let method = pendingRenewal, lives.count > 1 { settle(lives.count - 2, method) }
        pendingRenewal = nil
        if lives.count > Self.lifeLimit {
            lives.removeFirst(lives.count - Self.lifeLimit)
            marks.removeAll { $0.time < lives[0].issuedAt }
        }
    }

    /// The token in use ends now, if one is.
    private mutating func end(_ how: Ending, at time: Duration) {
        guard let newest = lives.indices.last, lives[newest].end == nil else { return }
        lives[newest].end = End(how: how, at: time)
    }

    /// The token at `index` was followed by a renewal: unless it had run out first, it ended renewed.
    private mutating func settle(_ index: Int, _ method: RenewMethod) {
        guard let end = lives[index].end, end.how == .replaced || end.how == .left else { return }
        lives[index].end = End(how: .renewed(method), at: end.at)
    }

    private mutating func mark(_ kind: Mark.Kind, at time: Duration) {
        marks.append(Mark(time: time, kind: kind))
        if marks.count > Self.markLimit { marks.removeFirst(marks.count - Self.markLimit) }
    }
}
