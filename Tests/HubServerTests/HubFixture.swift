import AccessToken
import HubServer
import HubProtocol
import JSON
import Sockets
import Synchronization
import TestSupport
import TokenServer
import WebServer
import WebSocket

/// A time tests move by hand, read by the hub from its thread.
final class HandTime: Sendable {
    private let seconds = Mutex(1_800_000_000.0)
    var now: Double { seconds.withLock { $0 } }
    func advance(by delta: Double) { seconds.withLock { $0 += delta } }
}

/// The hub's outlet without sockets: what it sends to each client, whom it closes and what it logs.
final class RecordingOutlet: WebSocketOutlet {
    private(set) var texts: [WebSocketClientID: [[String: JSONValue]]] = [:]
    private(set) var binaries: [WebSocketClientID: [[UInt8]]] = [:]
    private(set) var closes: [WebSocketClientID: WebSocketCloseCode] = [:]
    private(set) var closeReasons: [WebSocketClientID: String] = [:]
    private(set) var lines: [String] = []
    /// Whom the hub last said proven (in a channel) or not.
    private(set) var proven: [WebSocketClientID: Bool] = [:]

    func send(text: String, to clients: some Sequence<WebSocketClientID>) {
        let object = JSONValue.parse(Array(text.utf8))?.object ?? ["unreadable": .string(text)]
        for client in clients { texts[client, default: []].append(object) }
    }

    func send(binary: [UInt8], to clients: some Sequence<WebSocketClientID>) {
        for client in clients { binaries[client, default: []].append(binary) }
    }

    func close(_ client: WebSocketClientID, code: WebSocketCloseCode, reason: String) {
        closes[client] = code
        closeReasons[client] = reason
    }
    func log(_ line: String) { lines.append(line) }
    func prove(_ client: WebSocketClientID, _ proven: Bool) { self.proven[client] = proven }

    /// The messages sent to `client` since the last call.
    func take(_ client: WebSocketClientID) -> [[String: JSONValue]] {
        defer { texts[client] = nil }
        return texts[client] ?? []
    }

    func takeBinaries(_ client: WebSocketClientID) -> [[UInt8]] {
        defer { binaries[client] = nil }
        return binaries[client] ?? []
    }

    /// No loop: the leases in these tests need none.
    var loop: EventLoop? { nil }
}

/// A hub driven as its host drives it, on a time the test moves.
final class HubFixture {
    let time: HandTime
    let outlet = RecordingOutlet()
    let hub: HubServer
    private var lastID: UInt64 = 0

    /// A hub on `time` (hubs that share a store of leases share a time), with `leases` when given.
    init(time: HandTime = HandTime(), leases: (any ChannelLeases)? = nil) {
        self.time = time
        var config = HubServer.Configuration(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate,
                                              unixTime: { time.now })
        config.leases = leases
        hub = HubServer(config)
        hub.start(outlet: outlet, wake: {})
    }

    func connect(query: [String: String] = [:]) -> WebSocketClientID {
        lastID += 1
        let id = WebSocketClientID(lastID)
        hub.opened(id, address: "127.0.0.1", query: query)
        return id
    }

    func say(_ client: WebSocketClientID, _ json: String) { hub.received(.text(json), from: client) }

    /// A join request for a uid with a token built for it; the fixture's defaults fit the hub.
    func join(_ client: WebSocketClientID, channel: String = "room", uid: UInt32, token: String? = nil, role: String = "broadcaster") {
        say(client, #"{"type":"join","channel":"\#(channel)","uid":\#(uid),"token":"\#(token ?? self.token(channel: channel, uid: uid))","role":"\#(role)"}"#)
    }

    /// Moves time on and lets the hub act on what is due, as its host does.
    func advance(by seconds: Double) {
        time.advance(by: seconds)
        _ = hub.tick()
    }

    func token(channel: String = "room", user: RTCUser? = nil, uid: UInt32 = 0, lifetime: UInt32 = 600,
               certificate: String = TestCredentials.certificate) -> String {
        try! AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: certificate, channel: channel,
                                   user: user ?? .uid(uid), role: .publisher, tokenExpire: lifetime, privilegeExpire: lifetime,
                                   issuedAt: UInt32(time.now), salt: 1)
    }
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
