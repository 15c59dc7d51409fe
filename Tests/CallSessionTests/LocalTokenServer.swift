import AccessToken
import Foundation
import Synchronization
import TestSupport
import TokenClient

let localAppID = "970CA35de60c44645bbae8a215061b33"
let localCertificate = "5CFd2fd1755d40ecb72977518be15d3b"

/// Tokens made in the process as a token server makes them, at the manual clock's wall time, with the switch of an
/// app's own server: stopped, it refuses as a stopped server does.
final class LocalTokenServer: TokenProvider, Sendable {
    let lifetime: UInt32
    let clock: ManualClock
    private let running = Mutex(true)
    private let calls = Mutex(0)

    init(lifetime: UInt32 = 40, clock: ManualClock) {
        self.lifetime = lifetime
        self.clock = clock
    }

    var fetchCount: Int { calls.withLock { $0 } }

    func fetchToken(for request: TokenRequest) async throws -> FetchedToken {
        let call = calls.withLock { count -> Int in
            count += 1
            return count
        }
        guard running.withLock({ $0 }) else { throw TokenClientError.transport("connection refused") }
        let issued = UInt32(clock.unixTime)
        let token = try AccessToken2.buildRTC(appID: localAppID, appCertificate: localCertificate, channel: request.channel,
                                              user: request.user, role: request.role, tokenExpire: lifetime,
                                              privilegeExpire: lifetime, issuedAt: issued, salt: UInt32(call))
        return FetchedToken(token: token, expiresAt: Int64(issued) + Int64(lifetime))
    }

    var source: TokenSource {
        TokenSource(provider: self, url: URL(string: "http://127.0.0.1:8082")!,
                    ownServer: OwnTokenServer(appID: localAppID, appCertificate: localCertificate, tokenLifetime: lifetime) {
                        self.running.withLock { running in
                            running.toggle()
                            return running
                        }
                    })
    }
}

extension TokenSource {
    /// Tokens from a server over HTTP, as from a user's.
    static func http(_ url: URL, clock: ManualClock, transport: any HTTPTransport = URLSessionTransport()) -> TokenSource {
        TokenSource(provider: HTTPTokenProvider(url: url, transport: transport, unixTime: { clock.unixTime }), url: url)
    }
}
