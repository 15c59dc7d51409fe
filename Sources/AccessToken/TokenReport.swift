/// What a token string holds, whether it fits what was asked, and why not in plain words.
public struct TokenReport: Sendable, Equatable {
    /// The outcome of checking the signature.
    public enum Signature: String, Sendable {
        case notChecked = "not checked"
        case valid
        case invalid = "INVALID"
        /// 006 signs channel and uid, so its signature needs both to be checked.
        case needsChannelAndUid = "not checked (006 needs --channel and --uid)"
        /// 006 signs the user, and the token's uid checksum names neither the user given nor its other reading.
        case forAnotherUser = "not checked (006 signs the user, and this token is for another one)"
    }

    /// One privilege and when it ends.
    public struct Privilege: Sendable, Equatable {
        public var id: UInt16
        public var name: String
        /// Unix time it ends; nil when it never does.
        public var expiresAt: Int64?
    }

    /// One service the token grants.
    public struct ServiceSummary: Sendable, Equatable {
        public var type: UInt16
        public var name: String
        public var privileges: [Privilege]
        public var channel: String?
        /// The uid field ("" is any uid) of an RTC service, or the user id or account of another service.
        public var user: String?
        /// What an RTM2 service grants, per resource and permission.
        public var permissions: [RTM2Permission] = []
    }

    /// "007", "006", or nil when the text is not a token.
    public var version: String?
    public var appID: String?
    public var issuedAt: Int64?
    public var expiresAt: Int64?
    public var salt: UInt32?
    public var services: [ServiceSummary] = []
    public var signature: Signature = .notChecked
    public var channelMatches: Bool?
    public var uidMatches: Bool?
    /// Why the token is not valid for what was asked; empty when it is.
    public var problems: [String] = []
    /// Other things worth knowing about it.
    public var notes: [String] = []
    /// The unix time the report was made for.
    public var now: Int64

    public var isValid: Bool { problems.isEmpty }

    /// Seconds until expiry (negative once expired).
    public var secondsLeft: Int64? { expiresAt.map { $0 - now } }

    /// The RTC service, if any.
    public var rtc: ServiceSummary? { services.first { $0.type == ServiceType.rtc.rawValue } }

    /// Inspects `text` as a token at unix time `now`, checking whatever `check` gives.
    public init(inspecting text: String, check: TokenCheck, now: Int64) {
        self.now = now
        guard let (token, repairs) = Self.read(text, problems: &problems) else { return }
        problems += repairs
        switch token {
        case .accessToken2(let token): describe(token, check: check)
        case .accessToken006(let token): describe(token, check: check)
        }
        diagnose(check: check)
    }
}
