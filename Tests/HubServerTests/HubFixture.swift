import AccessToken
@testable import HubServer
import AgoraVocabulary
import HubProtocol
import JSON
import Sockets
import Synchronization
import TestSupport
import TokenServer
import WebServer
import WebSocket

/// A time tests move by hand, read by the hub from its thread: the hub's own time, and the wall clock, which moves
/// with it and may also be set apart (`stepWallClock`).
final class HandTime: Sendable {
    static let start = 1_800_000_000.0
    private let moved = Mutex((elapsed: 0.0, stepped: 0.0))
    /// The wall clock, unix seconds.
    var now: Double { moved.withLock { Self.start + $0.elapsed + $0.stepped } }
    /// The hub's time: how far this one was moved, the wall clock's steps aside.
    var elapsed: Duration { .seconds(moved.withLock { $0.elapsed }) }
    func advance(by delta: Double) { moved.withLock { $0.elapsed += delta } }
    /// Sets the wall clock `delta` seconds on (or back, when negative), as an operator or NTP does; time goes on as before.
    func stepWallClock(by delta: Double) { moved.withLock { $0.stepped += delta } }

    /// A hub's configuration on this time.
    func hubConfiguration() -> HubServer.Configuration {
        var config = HubServer.Configuration(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                              unixTime: { [self] in now })
        config.elapsed = { [self] in elapsed }
        return config
    }
}

/// What the hub had its host do, as values: the notices each client was sent, the frames, whom it closed and what it
/// logged.
final class RecordingOutlet {
    private(set) var notices: [WebSocketClientID: [HubNotice]] = [:]
    private(set) var binaries: [WebSocketClientID: [[UInt8]]] = [:]
    private(set) var closes: [WebSocketClientID: WebSocketCloseCode] = [:]
    private(set) var closeReasons: [WebSocketClientID: String] = [:]
    private(set) var lines: [String] = []
    /// Whom the hub last said proven (in a channel) or not.
    private(set) var proven: [WebSocketClientID: Bool] = [:]

    func record(_ outputs: [HubOutput]) {
        for output in outputs {
            switch output {
            case .notice(let notice, let clients): for client in clients { notices[client, default: []].append(notice) }
            case .video(let frame, let clients): for client in clients { binaries[client, default: []].append(frame) }
            case .close(let client, let code, let reason): (closes[client], closeReasons[client]) = (code, reason)
            case .prove(let client, let proven): self.proven[client] = proven
            case .log(let line): lines.append(line)
            }
        }
    }

    /// The notices sent to `client` since the last call.
    func take(_ client: WebSocketClientID) -> [HubNotice] {
        defer { notices[client] = nil }
        return notices[client] ?? []
    }

    func takeBinaries(_ client: WebSocketClientID) -> [[UInt8]] {
        defer { binaries[client] = nil }
        return binaries[client] ?? []
    }
}

/// A hub's core driven as its host drives it, on a time the test moves.
final class HubFixture {
    let time: HandTime
    let core: HubCore
    private let recorded = RecordingOutlet()
    private var lastID: UInt64 = 0

    /// A hub on `time` (hubs that share a store of leases share a time), with `leases` when given.
    init(time: HandTime = HandTime(), leases: (any ChannelLeases & Sendable)? = nil) {
        self.time = time
        var config = time.hubConfiguration()
        if let leases { config.leases = { leases } }
        core = HubCore(config)
    }

    /// What the hub had done so far, the answers of its store of leases that came in meanwhile included.
    var outlet: RecordingOutlet {
        recorded.record(core.take())
        return recorded
    }

    func connect(query: [String: String] = [:]) -> WebSocketClientID {
        lastID += 1
        let id = WebSocketClientID(lastID)
        recorded.record(core.opened(id, query: query))
        return id
    }

    func receive(_ message: WebSocketMessage, from client: WebSocketClientID) { recorded.record(core.received(message, from: client)) }

    func say(_ client: WebSocketClientID, _ json: String) { receive(.text(json), from: client) }

    func close(_ client: WebSocketClientID, _ end: WebSocketEnd) { recorded.record(core.closed(client, end)) }

    /// Lets the hub act on what is due, as its host does after every event; how long until its next deadline.
    @discardableResult
    func tick() -> Duration? {
        let (outputs, wait) = core.tick()
        recorded.record(outputs)
        return wait
    }

    /// The hub stops; true once its store has taken the leases back.
    func stopping() -> Bool {
        recorded.record(core.stopping())
        var finished = false
        core.finish { finished = true }
        return finished
    }

    /// A join request for a uid with a token built for it; the fixture's defaults fit the hub.
    func join(_ client: WebSocketClientID, channel: String = "room", uid: UInt32, token: String? = nil, role: String = "broadcaster") {
        say(client, #"{"type":"join","channel":"\#(channel)","uid":\#(uid),"token":"\#(token ?? self.token(channel: channel, uid: uid))","role":"\#(role)"}"#)
    }

    /// Moves time on and lets the hub act on what is due, as its host does.
    func advance(by seconds: Double) {
        time.advance(by: seconds)
        tick()
    }

    func token(channel: String = "room", user: RTCUser? = nil, uid: UInt32 = 0, lifetime: UInt32 = 600,
               certificate: String = TestCredentials.certificate) -> String {
        try! AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: certificate, channel: channel,
                                   user: user ?? .uid(uid), role: .publisher, tokenExpire: lifetime, privilegeExpire: lifetime,
                                   issuedAt: UInt32(time.now), salt: 1)
    }
}

/// A notice's fields as the tests read them: its type's name and the values it carries, names for codes.
extension HubNotice {
    var type: String {
        switch self {
        case .joined: "joined"
        case .userJoined: "userJoined"
        case .userOffline: "userOffline"
        case .userMedia: "userMedia"
        case .clientRoleChanged: "clientRoleChanged"
        case .tokenPrivilegeWillExpire: "tokenPrivilegeWillExpire"
        case .renewTokenResult: "renewTokenResult"
        case .connectionStateChanged: "connectionStateChanged"
        case .error: "error"
        }
    }

    var uid: Int64? {
        switch self {
        case .joined(_, let uid, _, _, _), .userOffline(let uid, _, _): Int64(uid)
        case .userJoined(let peer): Int64(peer.uid)
        default: nil
        }
    }

    var users: [HubPeer]? { if case .joined(_, _, _, _, let users) = self { users } else { nil } }

    var expiresAt: Int64? {
        switch self {
        case .joined(_, _, _, let expiresAt, _), .tokenPrivilegeWillExpire(let expiresAt): expiresAt
        case .renewTokenResult(_, let expiresAt): expiresAt
        default: nil
        }
    }

    var reason: String? {
        switch self {
        case .userOffline(_, let reason, _): reason.name
        case .connectionStateChanged(_, let reason, _): reason.name
        default: nil
        }
    }

    var reasonCode: Int? {
        switch self {
        case .userOffline(_, let reason, _): Int(reason.rawValue)
        case .connectionStateChanged(_, let reason, _): Int(reason.rawValue)
        default: nil
        }
    }

    var state: String? { if case .connectionStateChanged(let state, _, _) = self { state.name } else { nil } }
    var error: String? { if case .connectionStateChanged(_, _, let error?) = self { error.name } else { nil } }
    var errorCode: Int? { if case .connectionStateChanged(_, _, let error?) = self { Int(error.rawValue) } else { nil } }
    var result: String? { if case .renewTokenResult(let result, _) = self { result.name } else { nil } }
    var message: String? { if case .error(let message) = self { message } else { nil } }
}

extension [String: JSONValue] {
    var type: String? { self["type"]?.string }
    func int(_ name: String) -> Int64? { if case .integer(let value) = self[name] { value } else { nil } }
}

/// A video frame of `columns`×`rows` cells, its uid field left 0 as a sender leaves it: one colour, or the runs
/// given (which need not add up).
func videoFrame(columns: UInt8 = 32, rows: UInt8 = 18, runs: [UInt8]? = nil) -> [UInt8] {
    guard let runs else {
        let cells = Array(repeating: HubVideoFrame.Color(red: 10, green: 20, blue: 30), count: Int(columns) * Int(rows))
        return HubVideoFrame(columns: Int(columns), rows: Int(rows), cells: cells)!.encoded
    }
    return [HubVideoFrame.version, 0, 0, 0, 0, columns, rows] + runs
}
