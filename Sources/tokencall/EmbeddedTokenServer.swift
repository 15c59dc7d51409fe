import AccessToken
import Foundation
import Synchronization
import TokenClient
import TokenServer

/// The token server `join` runs on 127.0.0.1 when it is given no URL, and the session's source of tokens from it.
final class EmbeddedTokenServer: Sendable {
    /// How it was started, on the port it got, to start it again there.
    private let config: TokenServerConfig
    private let server: Mutex<TokenServer?>
    /// What its tokens get wrong on purpose, kept across restarts.
    private let mistakes: TokenMistakes
    let url: URL

    /// Starts it with these credentials, or random ones, its tokens after each caller's first carrying `mistake`.
    init(appID: String?, appCertificate: String?, tokenLifetime: UInt32, mistake: TokenMistake?,
         unixTime: @escaping @Sendable () -> Double) throws {
        var wanted = TokenServerConfig(
            port: 0, appID: appID ?? Self.randomHex(), appCertificate: appCertificate ?? Self.randomHex(), tokenLifetime: tokenLifetime,
            unixTime: { UInt32(truncatingIfNeeded: Int64(unixTime())) })
        mistakes = TokenMistakes(mistake)
        wanted.mistakes = mistakes
        let started = try TokenServer(wanted)
        var config = started.config
        config.port = started.port
        self.config = config
        url = started.url
        server = Mutex(started)
    }

    /// Tokens for `user` from it over HTTP, as from any server, with the switches the `s` and `x` keys turn: in the
    /// guide's fetch shape, or for a user account (which fetch cannot carry) in getToken's. Its mistakes reach the
    /// engine, as they would in an app that does not check its tokens.
    func source(for user: RTCUser, transport: any HTTPTransport, unixTime: @escaping @Sendable () -> Double) -> TokenSource {
        let mistakes = mistakes
        let shape: HTTPTokenProvider.Shape = if case .account = user { .getToken } else { .fetch }
        return TokenSource(provider: HTTPTokenProvider(url: url, shape: shape, transport: transport, handsOverMistakes: true, unixTime: unixTime),
                           url: url,
                           ownServer: OwnTokenServer(appID: config.appID, appCertificate: config.appCertificate,
                                                     tokenLifetime: config.tokenLifetime,
                                                     mistakes: MistakeSwitch(current: { mistakes.mistake }, set: { mistakes.mistake = $0 }),
                                                     toggle: toggle))
    }

    /// Stops it when it runs; otherwise starts it again on its port. Returns whether it runs.
    @Sendable func toggle() throws -> Bool {
        try server.withLock { server in
            if let running = server {
                running.stop()
                server = nil
                return false
            }
            server = try TokenServer(config)
            return true
        }
    }

    func stop() {
        server.withLock { $0?.stop(); $0 = nil }
    }

    private static func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
