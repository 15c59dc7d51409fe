import AccessToken
import Foundation
import Synchronization
import TestSupport
import TokenClient


/// A token signed with the test credentials, as a token server makes it.
func serverToken(channel: String = "test", user: RTCUser = .uid(0), role: RTCRole = .publisher, lifetime: UInt32 = 40,
                 issuedAt: UInt32, salt: UInt32) throws -> String {
    try AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, channel: channel,
                              user: user, role: role, tokenExpire: lifetime, privilegeExpire: lifetime, issuedAt: issuedAt, salt: salt)
}

/// Tokens made in the process as a token server makes them, at a wall time (the manual clock's), with the switch of an
/// app's own server: stopped, it refuses as a stopped server does.
final class LocalTokenServer: TokenProvider, Sendable {
    let lifetime: UInt32
    /// The wall its tokens are made on.
    private let unixTime: @Sendable () -> Double
    private let running = Mutex(true)
    private let calls = Mutex(0)

    convenience init(lifetime: UInt32 = 40, clock: ManualClock) {
        self.init(lifetime: lifetime) { clock.unixTime }
    }

    init(lifetime: UInt32 = 40, unixTime: @escaping @Sendable () -> Double) {
        self.lifetime = lifetime
        self.unixTime = unixTime
    }

    var fetchCount: Int { calls.withLock { $0 } }

    func fetchToken(for request: TokenRequest) async throws -> FetchedToken {
        let call = calls.withLock { count -> Int in
            count += 1
            return count
        }
        guard running.withLock({ $0 }) else { throw TokenClientError.transport("connection refused") }
        let issued = UInt32(unixTime())
        let token = try serverToken(channel: request.channel, user: request.user, role: request.role, lifetime: lifetime,
                                    issuedAt: issued, salt: UInt32(call))
        return FetchedToken(token: token, expiresAt: Int64(issued) + Int64(lifetime))
    }

    var source: TokenSource {
        TokenSource(provider: self, url: URL(string: "http://127.0.0.1:8082")!,
                    ownServer: OwnTokenServer(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, tokenLifetime: lifetime) {
                        self.running.withLock { running in
                            running.toggle()
                            return running
                        }
                    })
    }
}

extension TokenSource {
    /// Tokens from a server over HTTP, as from a user's.
    static func http(_ url: URL, clock: ManualClock, transport: any HTTPTransport = LoopHTTPTransport()) -> TokenSource {
        TokenSource(provider: HTTPTokenProvider(url: url, transport: transport, unixTime: { clock.unixTime }), url: url)
    }
}
