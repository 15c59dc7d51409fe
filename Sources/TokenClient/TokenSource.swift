import AccessToken
import Foundation
import PrintableText

/// Where a call's tokens come from: the provider that fetches them, the server's URL, and what the app knows of
/// that server when it runs it itself.
public struct TokenSource: Sendable {
    public var provider: any TokenProvider
    public var url: URL
    /// Set when the app runs the token server itself.
    public var ownServer: OwnTokenServer?

    public init(provider: any TokenProvider, url: URL, ownServer: OwnTokenServer? = nil) {
        self.provider = provider
        self.url = url
        self.ownServer = ownServer
    }

    /// The server as a person reads it: its URL without credentials, marked when the server is the app's own.
    public var label: String {
        let shown = url.absoluteString.urlWithoutCredentials
        return ownServer == nil ? shown : "\(shown) (embedded)"
    }
}

/// A token server the app runs itself: the credentials it signs with, its tokens' lifetime, and a switch to stop
/// and start it again.
public struct OwnTokenServer: Sendable {
    public var appID: String
    public var appCertificate: String
    public var tokenLifetime: UInt32
    /// Stops the server when it runs, starts it again (on the same port) when it does not; returns whether it runs.
    public var toggle: @Sendable () throws -> Bool
    /// The mistake its tokens carry on purpose after the first; nil when it makes none.
    public var mistakes: MistakeSwitch?

    public init(appID: String, appCertificate: String, tokenLifetime: UInt32, mistakes: MistakeSwitch? = nil,
                toggle: @escaping @Sendable () throws -> Bool) {
        self.appID = appID
        self.appCertificate = appCertificate
        self.tokenLifetime = tokenLifetime
        self.mistakes = mistakes
        self.toggle = toggle
    }
}

/// The mistake an app's own token server makes on purpose: read it, and cycle it (none, each kind, none again).
public struct MistakeSwitch: Sendable {
    public var current: @Sendable () -> TokenMistake?
    /// Makes the tokens carry this mistake from the next on (nil: none).
    public var set: @Sendable (TokenMistake?) -> Void

    public init(current: @escaping @Sendable () -> TokenMistake?, set: @escaping @Sendable (TokenMistake?) -> Void) {
        self.current = current
        self.set = set
    }
}

/// Where a call's tokens come from: a token server (the first token may be pasted), or a person who pastes each one.
public enum TokenOrigin: Sendable {
    /// Fetched from a server at join and at each renewal; `first`, while set, is used for the join instead.
    case server(TokenSource, first: PastedToken?)
    /// Pasted by hand, with no server: `latest` is the last token pasted.
    case byHand(latest: PastedToken)

    /// The source as a person reads it: the server's URL, or that tokens are pasted.
    public var label: String {
        switch self {
        case .server(let source, _): source.label
        case .byHand: "none (tokens pasted by hand)"
        }
    }

    /// The token server the app runs itself, when it does.
    public var ownServer: OwnTokenServer? {
        if case .server(let source, _) = self { source.ownServer } else { nil }
    }
}
