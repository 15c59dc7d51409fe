import AccessToken
import Arguments
import HubServer
import Dispatch
import Foundation
import TokenServer

/// `tokencall serve`: the token server, until SIGINT or SIGTERM.
enum ServeCommand {
    static let command = Command(
        "serve",
        summary: "Run a token server speaking the shapes users already deploy.",
        options: [
            .value("host", "ADDRESS", help: "address to listen on", default: "127.0.0.1"),
            .value("port", "N", help: "port, 0 for any free one", environment: ["SERVER_PORT", "PORT"], default: "8082"),
            .value("app-id", "ID", help: "App ID, 32 hex characters", environment: ["APP_ID"], required: true),
            .value("app-certificate", "CERT", help: "App Certificate, 32 hex characters", environment: ["APP_CERTIFICATE"],
                   required: true),
            .value("token-lifetime", "SECONDS", help: "lifetime of issued tokens, 1...86400", default: "3600"),
            .value("require-bearer", "CREDENTIAL", help: "answer token requests only with Authorization: Bearer CREDENTIAL"),
            .value("cors-origin", "ORIGINS", help: "comma-separated origins allowed by CORS, or *", environment: ["CORS_ALLOW_ORIGIN"]),
            .value("max-connections", "N", help: "connections served at once; more get 503", default: "256"),
            .value("max-connections-per-address", "N", help: "connections one client address may hold; more get 503",
                   default: "64"),
            MisconfigureOption.option,
            .flag("quiet", help: "no line per request"),
        ],
        epilogue: """
        Endpoints: POST /fetch_rtc_token {"uid","channelName","role"} -> {"token","expiresIn"};
                   POST /getToken {"tokenType":"rtc","channel","role","uid","expire"} -> {"token"};
                   GET /rtc/{channel}/{role}/{uid|userAccount}/{uid}/?expiry=N -> {"rtcToken"};
                   GET /ping -> {"message":"pong"};
                   GET /hub (WebSocket) -> the channel hub (Docs/hub-protocol.md).
        """,
        run: run
    )

    static func run(_ args: Invocation) throws(UsageError) -> Int32 {
        let lifetime: UInt32 = try args.integer("token-lifetime", in: TokenServerConfig.lifetimeRange)
        let port: UInt16 = try args.integer("port", in: 0...UInt16.max)
        let maxConnections: Int = try args.integer("max-connections", in: 1...10_000)
        let perAddress: Int = try args.integer("max-connections-per-address", in: 1...10_000)
        let origins = (args.string("cors-origin") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        if let bearer = args.string("require-bearer") {
            if bearer.isEmpty { throw args.error("--require-bearer needs a credential; it is empty") }
            if bearer.contains(where: \.isWhitespace) { throw args.error("--require-bearer needs a credential without spaces") }
        }
        let log: (@Sendable (String) -> Void)? = args.has("quiet") ? nil : { @Sendable line in Console.error(line) }
        var config = TokenServerConfig(
            host: args.string("host"), port: port, appID: args.string("app-id"),
            appCertificate: args.string("app-certificate"), tokenLifetime: lifetime,
            requiredBearer: args.string("require-bearer"), corsOrigins: origins, maxConnections: maxConnections,
            log: log)
        config.maxConnectionsPerAddress = perAddress
        let mistake = try MisconfigureOption.read(args)
        config.mistakes = mistake.map(TokenMistakes.init)
        config.webSocket = WebSocketEndpoint(path: "/hub", service: HubServer(.init(
            appID: config.appID, appCertificate: config.appCertificate, unixTime: { Date().timeIntervalSince1970 })),
            limits: HubServer.endpointLimits)
        // Before the server starts and says so: a SIGTERM sent right after the announcement must not be lost.
        let waitForStop = StopSignals.waiter()
        let server: TokenServer
        do {
            server = try TokenServer(config)
        } catch let error as TokenError {
            throw args.error(error.description)
        } catch {
            Console.error("tokencall serve: \(error); pick another address (such as 127.0.0.1, or 0.0.0.0 for all) or port with --host/--port")
            return ExitCode.failure
        }
        Console.error("tokencall serve: listening on \(server.listening) — tokens for App ID \(config.appID), \(lifetime) s each"
                      + (config.requiredBearer == nil ? "" : ", bearer required")
                      + (origins.isEmpty ? "" : ", CORS for \(origins.joined(separator: ", "))")
                      + (mistake.map { ", then \($0.summary) to each caller on purpose (--misconfigure \($0.rawValue))" } ?? "")
                      + "; channel hub at /hub (WebSocket)")
        if server.maxConnections < maxConnections {
            Console.error("tokencall serve: serving at most \(server.maxConnections) connections, not \(maxConnections): the process "
                          + "may open \(server.openFileLimit) files (ulimit -n); raise that limit to serve more")
        }
        waitForStop()
        Console.error("tokencall serve: stopping")
        server.stop()
        return ExitCode.ok
    }
}
