import Foundation
import RedisClient
import Sockets
import Synchronization
import TestSupport
import Testing

/// Three `tokencall serve` hubs behind HAProxy with `Deploy/haproxy.cfg`, and with `redis` one `redis-server` they
/// share (`serve --redis`): every process on a free 127.0.0.1 port, started here and stopped when the farm goes.
final class HubFarm {
    /// What a process wrote, gathered as it comes so that no pipe fills.
    final class Output: Sendable {
        let text = Mutex("")
        init(_ pipe: Pipe) {
            pipe.fileHandleForReading.readabilityHandler = { [self] handle in
                let data = handle.availableData
                if data.isEmpty { handle.readabilityHandler = nil; return }
                text.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }
        var all: String { text.withLock { $0 } }
    }

    let proxyPort: UInt16
    let hubPorts: [UInt16]
    let redisPort: UInt16?
    private(set) var hubs: [Process?]
    private var redis: Process?
    /// What each hub logged, in every run of it on its port.
    private(set) var hubLogs: [[Output]] = [[], [], []]
    private var others: [Process] = []
    private var outputs: [Output] = []
    private var errors: [Output] = []

    static let haproxy = "/usr/sbin/haproxy"
    static let redisServer = "/usr/bin/redis-server"
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: haproxy) && FileManager.default.isExecutableFile(atPath: redisServer)
    }

    init(redis: Bool) throws {
        var ports: [UInt16] = []
        for _ in 0..<5 { ports.append(try Self.freePort(avoiding: ports)) }
        proxyPort = ports[0]
        hubPorts = Array(ports[1...3])
        redisPort = redis ? ports[4] : nil
        hubs = [nil, nil, nil]
        if redisPort != nil { try startRedis() }
        for index in 0..<3 { try startHub(index) }
        let config = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Deploy/haproxy.cfg").standardized
        var environment = ["TOKENCALL_LISTEN": "127.0.0.1:\(proxyPort)", "PATH": "/usr/bin:/bin"]
        for (index, port) in hubPorts.enumerated() { environment["TOKENCALL_HUB\(index + 1)"] = "127.0.0.1:\(port)" }
        others.append(try start(Self.haproxy, ["-db", "-f", config.path], environment: environment))
        try Self.waitForPort(proxyPort)
    }

    deinit {
        for process in hubs.compactMap({ $0 }) + others + [redis].compactMap({ $0 }) where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// The hub's `ws://` address, as it advertises itself to the others.
    func hubAddress(_ index: Int) -> String { "ws://127.0.0.1:\(hubPorts[index])/hub" }

    func startHub(_ index: Int) throws {
        var arguments = ["serve", "--port", "\(hubPorts[index])"]
        if let redisPort { arguments += ["--redis", "redis://127.0.0.1:\(redisPort)"] }
        let process = try start(TokenCallProcess.binary.path, arguments,
                                environment: ["APP_ID": TestCredentials.appID, "APP_CERTIFICATE": TestCredentials.certificate,
                                              "PATH": "/usr/bin:/bin"])
        hubs[index] = process
        hubLogs[index].append(errors.last!)
        try Self.waitForPort(hubPorts[index])
    }

    /// Starts the farm's `redis-server`, empty.
    func startRedis() throws {
        guard let redisPort else { return }
        redis = try start(Self.redisServer, ["--port", "\(redisPort)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        try Self.waitForPort(redisPort)
    }

    /// Kills the farm's `redis-server` (SIGKILL: what it held is gone).
    func killRedis() {
        guard let redis else { return }
        kill(redis.processIdentifier, SIGKILL)
        redis.waitUntilExit()
        self.redis = nil
    }

    /// Kills the hub at once (SIGKILL: no goodbye, its leases left to lapse), or stops it (SIGTERM).
    func stopHub(_ index: Int, signal: Int32 = SIGKILL) {
        guard let process = hubs[index] else { return }
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        hubs[index] = nil
    }

    /// The hub holding a channel's lease, as Redis says. The test's own look, not a hub's: it is given 5 s, not the
    /// 0.5 s a client has by default, which a busy machine exceeded.
    func owner(of channel: String) throws -> Int? {
        let loop = try EventLoop(name: "farm-redis")
        defer { loop.stop() }
        let address = try RedisAddress(parsing: "redis://127.0.0.1:\(try #require(redisPort))")
        let answer = Mutex<Result<[RESPValue], RedisError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            let redis = RedisConnection(address: address, loop: loop, deadline: .seconds(5))
            redis.send([["GET", "tokencall:channel:\(channel)"]]) { result in
                answer.withLock { $0 = result }
                redis.close("the look is done")
                done.signal()
            }
        }
        done.wait()
        guard let holder = try answer.withLock({ $0! }).get()[0].text else { return nil }
        return (0..<3).first { hubAddress($0) == holder }
    }

    /// The hubs on which `uid` last joined `channel` since `marks` (each hub's log lines, as `logMarks` counted them).
    func hubWhereLastJoined(_ channel: String, uid: UInt32, since marks: [Int]) -> Int? {
        var latest: (hub: Int, at: Int)?
        for hub in 0..<3 {
            let lines = hubLogs[hub].flatMap { $0.all.split(separator: "\n") }
            for (number, line) in lines.enumerated().dropFirst(marks[hub]) where line.hasSuffix("joined \(channel) as uid \(uid)") {
                // Lines of different hubs are not ordered against each other: a join seen on two hubs is a split.
                if let current = latest, current.hub != hub { return -1 }
                latest = (hub, number)
            }
        }
        return latest?.hub
    }

    /// How many lines each hub has logged so far.
    var logMarks: [Int] { hubLogs.map { runs in runs.reduce(0) { $0 + $1.all.split(separator: "\n").count } } }

    /// `tokencall join` through the balancer, its events as JSON lines.
    func join(channel: String, uid: UInt32, seconds: Int) throws -> (Process, Output) {
        let process = try start(TokenCallProcess.binary.path, [
            "join", "--hub", "ws://127.0.0.1:\(proxyPort)/hub", "--token-url", "http://127.0.0.1:\(proxyPort)/fetch_rtc_token",
            "--channel", channel, "--uid", "\(uid)", "--remote-users", "0", "--duration", "\(seconds)", "--json",
        ], environment: ["PATH": "/usr/bin:/bin"])
        others.append(process)
        return (process, outputs.last!)
    }

    private func start(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        outputs.append(Output(out))
        errors.append(Output(err))
        try process.run()
        return process
    }

    static func freePort(avoiding taken: [UInt16]) throws -> UInt16 {
        while true {
            let (socket, _, port) = try Socket.listen(host: "127.0.0.1", port: 0)
            socket.close()
            if !taken.contains(port) { return port }
        }
    }

    /// Waits (up to 10 s) until something accepts connections on the port.
    static func waitForPort(_ port: UInt16) throws {
        guard Loopback.waitForListener(on: port) else { throw FarmError(description: "nothing listens on 127.0.0.1:\(port) after 10 s") }
    }
}

struct FarmError: Error, CustomStringConvertible {
    let description: String
}
