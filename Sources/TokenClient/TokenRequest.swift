import AccessToken

/// What a token is asked for: a channel, a user and a role; the App ID when it is known.
public struct TokenRequest: Sendable, Equatable {
    public var channel: String
    public var user: RTCUser
    public var role: RTCRole
    /// When set, a token for another App ID is refused.
    public var appID: String?

    public init(channel: String, user: RTCUser, role: RTCRole = .publisher, appID: String? = nil) {
        self.channel = channel
        self.user = user
        self.role = role
        self.appID = appID
    }
}

/// A token as fetched: the raw string and when it stops being accepted.
public struct FetchedToken: Sendable, Equatable, CustomStringConvertible {
    /// The raw token, never with a `Bearer ` prefix.
    public let token: String
    /// Unix time the token (or its join privilege) ends.
    public let expiresAt: Int64
    /// The path a same-origin redirect led to, when the token came from another endpoint than the one asked.
    public internal(set) var redirectedTo: String? {
        get { rare?.redirectedTo }
        set { rare = Rare(redirectedTo: newValue, flaw: flaw) }
    }
    /// What is wrong with a token handed over anyway (a provider that hands over mistakes); nil when nothing is.
    public internal(set) var flaw: TokenClientError? {
        get { rare?.flaw }
        set { rare = Rare(redirectedTo: redirectedTo, flaw: newValue) }
    }
    /// Both of the above, behind one reference: a token then copies as two references, not through the error's
    /// layout (a warm `TokenCache.token()` copies one for each caller).
    private var rare: Rare?

    private final class Rare: Sendable {
        let redirectedTo: String?
        let flaw: TokenClientError?

        init(redirectedTo: String?, flaw: TokenClientError?) {
            self.redirectedTo = redirectedTo
            self.flaw = flaw
        }
    }

    public init(token: String, expiresAt: Int64) {
        self.token = token
        self.expiresAt = expiresAt
    }

    public static func == (a: FetchedToken, b: FetchedToken) -> Bool {
        a.token == b.token && a.expiresAt == b.expiresAt && a.redirectedTo == b.redirectedTo && a.flaw == b.flaw
    }

    public var description: String { "a token of \(token.utf8.count) characters expiring at \(UnixTime.iso8601(expiresAt))" }
}

/// Fetches tokens, in the spirit of Moss's `Authenticator`: the raw token, never a `Bearer ` prefix.
///
/// Throws `TokenClientError`, or `CancellationError` when the caller gave up.
public protocol TokenProvider: Sendable {
    func fetchToken(for request: TokenRequest) async throws -> FetchedToken
}
