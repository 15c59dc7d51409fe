import Foundation
import Sockets
import TestSupport
import Testing
import WebSocket

/// `serve --redis redis://:PASSWORD@HOST:PORT` as its user reads it: the password in nothing serve prints — its start
/// line, its refusal of an address, the hub's log of a join it could not place because Redis is down or refuses the
/// password.
@Suite struct ServeRedisPasswordTests {
    /// It holds what ends a URL's authority, so that a reader of URLs would stop inside it.
    static let password = "hunter2/x?y#z"
    /// What of the password a leak would show at least.
    static let leaked = "hunter2"
    static let environment = ["APP_ID": TestCredentials.appID, "APP_CERTIFICATE": TestCredentials.certificate, "PATH": "/usr/bin:/bin"]

    /// serve with the password for a Redis at 127.0.0.1:`redisPort`, and one client joining a channel, which the hub
    /// cannot place: everything serve printed, from its start to its stop.
    static func printedAfterAJoin(redisPort: UInt16) throws -> String {
        let (process, _, stderr) = try TokenCallProcess.start(
            ["serve", "--port", "0", "--redis", "redis://:\(password)@127.0.0.1:\(redisPort)"], environment: environment)
        defer { if process.isRunning { process.terminate() }; process.waitUntilExit() }
        let start = TokenCallProcess.read(stderr, until: " — tokens for App ID")
        let address = try #require(start.firstRange(of: "listening on http://127.0.0.1:"), "\(start)")
        let port = try #require(UInt16(start[address.upperBound...].prefix { $0.isNumber }))
        // Gathered as it comes, not read to the pipe's end: a process started meanwhile by a test beside this one may
        // hold the pipe open.
        let rest = HubFarm.Output(stderr)
        let client = try WebSocketTestClient.open(port: port)
        client.send(text: #"{"type":"join","channel":"test","uid":1,"token":"\#(try HubClientHardeningTests.token(uid: 1))"}"#)
        #expect(try client.closeFrame()?.code.rawValue == 4503, "the hub cannot tell who owns the channel")
        process.terminate()
        process.waitUntilExit()
        let end = ContinuousClock.now + .seconds(5)
        while !rest.all.contains("tokencall serve: stopping"), ContinuousClock.now < end { Thread.sleep(forTimeInterval: 0.02) }
        return start + rest.all
    }

    @Test func withRedisDownTheStartAndTheRefusedJoinNameItWithoutThePassword() throws {
        let (listener, _, redisPort) = try Socket.listen(host: "127.0.0.1", port: 0)
        listener.close()
        let printed = try Self.printedAfterAJoin(redisPort: redisPort)
        #expect(printed.contains("tokencall serve: channels owned through redis://127.0.0.1:\(redisPort) as ws://"), "\(printed)")
        #expect(printed.contains("cannot connect to redis://127.0.0.1:\(redisPort): "), "\(printed)")
        #expect(!printed.contains(Self.leaked), "\(printed)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: HubFarm.redisServer), "needs redis-server: make deps"))
    func aRedisRefusingThePasswordIsLoggedWithoutIt() throws {
        let redisPort = try HubFarm.freePort(avoiding: [])
        let redis = Process()
        redis.executableURL = URL(fileURLWithPath: HubFarm.redisServer)
        redis.arguments = ["--port", "\(redisPort)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--requirepass", "another"]
        redis.standardOutput = FileHandle.nullDevice
        redis.standardError = FileHandle.nullDevice
        try redis.run()
        defer { kill(redis.processIdentifier, SIGKILL); redis.waitUntilExit() }
        try HubFarm.waitForPort(redisPort)
        let printed = try Self.printedAfterAJoin(redisPort: redisPort)
        #expect(printed.contains("redis://127.0.0.1:\(redisPort) refused the connection's setup: WRONGPASS"), "\(printed)")
        #expect(!printed.contains(Self.leaked), "\(printed)")
    }

    @Test(arguments: [false, true])
    func anAddressServeRefusesIsShownWithoutThePassword(fromEnvironment: Bool) throws {
        let address = "redis://:\(Self.password)@127.0.0.1:99999"
        let result = try TokenCallProcess.run(["serve", "--port", "0"] + (fromEnvironment ? [] : ["--redis", address]),
                                              environment: Self.environment.merging(fromEnvironment ? ["TOKENCALL_REDIS": address] : [:]) { $1 })
        #expect(result.status == 64, "a usage error")
        #expect(result.stderr.contains(#"--redis: Redis address "redis://127.0.0.1:99999": the port must be a number 1...65535"#), "\(result.stderr)")
        #expect(!(result.stdout + result.stderr).contains(Self.leaked))
    }
}
