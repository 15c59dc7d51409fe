import WebServer
import AccessToken
import HubServer
import Foundation
import HubClient
import HubProtocol
import Sockets
import Synchronization
import TestSupport
import TLS
import TokenServer

/// A `tokencall serve`-style server with the hub on 127.0.0.1, on real time, that can be stopped and started
/// again on its port.
final class ServedHub {
    private(set) var server: TokenServer
    let limits: WebSocketLimits
    let tls: TLSContext?
    let leases: (any ChannelLeases & Sendable)?

    /// With `tls`, the hub is wss://; with `leases`, it serves only the channels they say are its own.
    init(port: UInt16 = 0, limits: WebSocketLimits = HubServer.endpointLimits, tls: TLSContext? = nil,
         leases: (any ChannelLeases & Sendable)? = nil) throws {
        (self.limits, self.tls, self.leases) = (limits, tls, leases)
        server = try Self.serve(port: port, limits: limits, tls: tls, leases: leases)
    }

    deinit { server.stop() }

    var address: HubAddress { try! HubAddress(parsing: "\(tls == nil ? "ws" : "wss")://127.0.0.1:\(server.port)/hub") }

    func stop() { server.stop() }

    func restart() throws {
        let port = server.port
        server.stop()
        server = try Self.serve(port: port, limits: limits, tls: tls, leases: leases)
    }

    private static func serve(port: UInt16, limits: WebSocketLimits, tls: TLSContext?, leases: (any ChannelLeases & Sendable)?) throws -> TokenServer {
        var hubConfig = HubServer.Configuration(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                                unixTime: { Date().timeIntervalSince1970 })
        if let leases { hubConfig.leases = { leases } }
        var config = TokenServerConfig(port: port, appID: TestCredentials.appID, appCertificate: TestCredentials.certificate)
        config.webSocket = HubServer.endpoint(hubConfig, limits: limits)
        config.tls = tls
        return try TokenServer(config)
    }

    static func token(channel: String = "room", uid: UInt32) -> String {
        try! AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, channel: channel,
                                   user: .uid(uid), role: .publisher, tokenExpire: 600, privilegeExpire: 600,
                                   issuedAt: UInt32(Date().timeIntervalSince1970), salt: 1)
    }

    static func join(_ uid: UInt32, channel: String = "room", token: String? = nil) -> HubRequest {
        .join(HubJoin(channel: channel, user: .uid(uid), token: token ?? Self.token(channel: channel, uid: uid)))
    }
}

/// Leases that say every channel lives on `owner`: a hub that redirects every join there.
final class ElsewhereLeases: ChannelLeases, Sendable {
    let owner: String
    let leaseDuration: Duration = .seconds(3)
    init(owner: String) { self.owner = owner }
    func start(on loop: EventLoop) {}
    func claim(_ channel: String, _ answer: @escaping (ChannelClaim) -> Void) { answer(.elsewhere(owner)) }
    func renew(_ channels: [String], _ answer: @escaping (Result<[String], LeaseStoreError>) -> Void) { answer(.success(channels)) }
    func release(_ channels: [String]) {}
    func finish(within limit: Duration, then done: @escaping () -> Void) { done() }
}

/// What a connection delivered, in order; `next` waits for the next event up to 10 s, so a failing test ends.
final class EventLog: Sendable {
    private let state = Mutex<(events: [HubLinkEvent], read: Int)>(([], 0))
    private let arrived = DispatchSemaphore(value: 0)

    var handler: @Sendable (HubLinkEvent) -> Void {
        { [self] event in
            state.withLock { $0.events.append(event) }
            arrived.signal()
        }
    }

    func next() -> HubLinkEvent? {
        guard arrived.wait(timeout: .now() + 10) == .success else { return nil }
        return state.withLock { state in
            defer { state.read += 1 }
            return state.events[state.read]
        }
    }
}

extension HubLinkEvent {
    var lostReason: String? { if case .lost(let reason, _) = self { reason } else { nil } }
    var notice: HubNotice? { if case .notice(let notice) = self { notice } else { nil } }
}

/// A connection opened on its own loop, its events logged.
func openConnection(_ address: HubAddress, timing: HubTiming = .fast, trust: TLSTrust = .system) throws -> (HubConnection, EventLog) {
    let connection = HubConnection(address: address, loop: try HubClientLoop(), timing: timing, trust: trust)
    let log = EventLog()
    connection.open(events: log.handler)
    return (connection, log)
}

extension HubTiming {
    /// Reconnects within a tenth of a second, so a restart test takes no longer than the restart.
    static var fast: HubTiming {
        var timing = HubTiming()
        timing.firstBackoff = .milliseconds(20)
        timing.longestBackoff = .milliseconds(100)
        return timing
    }
}
