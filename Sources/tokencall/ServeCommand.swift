import AccessToken
import Arguments
import HubServer
import Dispatch
import Foundation
import PrintableText
import TLS
import RedisClient
import Sockets
import Synchronization
import TokenServer
import WebClient

/// `tokencall serve`: the token server, until SIGINT or SIGTERM.
enum ServeCommand {
    static let host: OptionKey<String> = .text("host", "ADDRESS", help: "address to listen on", default: "127.0.0.1")
    static let port: OptionKey<UInt16> = .integer("port", help: "port, 0 for any free one", in: 0...UInt16.max,
                                                  environment: ["SERVER_PORT", "PORT"], default: 8082)
    static let appID: OptionKey<String> = .required("app-id", "ID", help: "App ID, 32 hex characters", environment: ["APP_ID"])
    static let appCertificate: OptionKey<String> = .required("app-certificate", "CERT", help: "App Certificate, 32 hex characters",
                                                             environment: ["APP_CERTIFICATE"])
    static let tokenLifetime: OptionKey<UInt32> = .integer("token-lifetime", "SECONDS", help: "lifetime of issued tokens",
                                                           in: TokenServerConfig.lifetimeRange, default: 3600)
    static let requireBearer: OptionKey<String?> = .text(
        "require-bearer", "CREDENTIAL", help: "answer token requests only with Authorization: Bearer CREDENTIAL")
    static let corsOrigin: OptionKey<String?> = .text("cors-origin", "ORIGINS", help: "comma-separated origins allowed by CORS, or *",
                                                      environment: ["CORS_ALLOW_ORIGIN"])
    static let allowedHost: OptionKey<String?> = .text(
        "allowed-host", "NAMES", help: "comma-separated names it is reached by besides localhost, --host, any IP address, "
            + "--advertise and the certificate's names (such as a balancer's); requests for other names get 421")
    static let maxConnections: OptionKey<Int> = .integer(
        "max-connections", help: "connections served at once; a newcomer then takes the place of one with no request answered yet, or gets 503",
        in: 1...10_000, default: 256)
    static let maxConnectionsPerAddress: OptionKey<Int> = .integer(
        "max-connections-per-address", help: "connections one client address may hold; more get 503", in: 1...10_000, default: 64)
    static let tlsCert: OptionKey<String?> = .text(
        "tls-cert", "FILE", help: "serve https and the hub as wss on the same port, with this PEM certificate "
            + "(the server's first, then its chain); needs --tls-key")
    static let tlsKey: OptionKey<String?> = .text("tls-key", "FILE", help: "the PEM private key of --tls-cert, unencrypted")
    static let redis: OptionKey<String?> = .text(
        "redis", "URL", help: "keep one owner per channel across hubs in this Redis (redis://HOST:PORT[/DB]); "
            + "a join for a channel another hub holds is redirected there (Docs/deploy.md)", environment: ["TOKENCALL_REDIS"])
    static let advertise: OptionKey<String?> = .text(
        "advertise", "URL", help: "with --redis: this hub's address as clients reach it, ws://HOST:PORT/hub "
            + "(wss:// with --tls-cert; default: the address it listens on)")
    static let quiet: OptionKey<Bool> = .flag("quiet", help: "no line per request")

    static let command = Command(
        "serve",
        summary: "Run a token server speaking the shapes users already deploy.",
        options: [host.option, port.option, appID.option, appCertificate.option, tokenLifetime.option, requireBearer.option,
                  corsOrigin.option, allowedHost.option, maxConnections.option, maxConnectionsPerAddress.option, tlsCert.option,
                  tlsKey.option, redis.option, advertise.option, MisconfigureOption.key.option, quiet.option],
        epilogue: """
        Endpoints: POST /fetch_rtc_token {"uid","channelName","role"} -> {"token","expiresIn"};
                   POST /getToken {"tokenType":"rtc","channel","role","uid","expire"} -> {"token"};
                   GET /rtc/{channel}/{role}/{uid|userAccount}/{uid}/?expiry=N -> {"rtcToken"};
                   GET /ping -> {"message":"pong"};
                   GET /hub (WebSocket) -> the channel hub (Docs/hub-protocol.md);
                   GET / -> a page that joins the hub; GET /AgoraRTC_N.js, /agora-rtc-sdk-ng.js -> the Web SDK's
                   shape for your own pages (Docs/web.md).
        """,
        run: run
    )

    static func run(_ args: Invocation) throws(UsageError) -> Int32 {
        let lifetime = args[tokenLifetime]
        let port = args[Self.port]
        let maxConnections = args[Self.maxConnections]
        let perAddress = args[maxConnectionsPerAddress]
        let origins = (args[corsOrigin] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        if let bearer = args[requireBearer] {
            if bearer.isEmpty { throw args.error("--require-bearer needs a credential; it is empty") }
            if bearer.contains(where: \.isWhitespace) { throw args.error("--require-bearer needs a credential without spaces") }
        }
        let log: (@Sendable (String) -> Void)? = args[quiet] ? nil : { @Sendable line in Console.error(line) }
        var config = TokenServerConfig(
            host: args[host], port: port, appID: args[appID],
            appCertificate: args[appCertificate], tokenLifetime: lifetime,
            requiredBearer: args[requireBearer], corsOrigins: origins, maxConnections: maxConnections,
            log: log)
        config.maxConnectionsPerAddress = perAddress
        config.allowedHosts = try allowedHosts(args)
        config.tls = try tlsContext(args)
        for file in WebAssets.files(appID: config.appID) {
            config.assets[file.path] = WebAsset(contentType: file.contentType, body: Array(file.text.utf8))
        }
        let mistake = args[MisconfigureOption.key]
        config.mistakes = mistake.map(TokenMistakes.init)
        var hubConfig = HubServer.Configuration(appID: config.appID, appCertificate: config.appCertificate,
                                                 unixTime: { Date().timeIntervalSince1970 })
        let redis = try redisAddress(args)
        if args.has(advertise), redis == nil { throw args.error("--advertise names this hub for --redis; give --redis too, or drop it") }
        // The hub's lease store is made once the port is known (the advertised address holds it).
        let leases = LateLeases.Handover()
        if redis != nil { hubConfig.leases = { LateLeases(leases) } }
        config.webSocket = HubServer.endpoint(hubConfig)
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
        if let redis {
            let advertised: String
            do throws(UsageError) { advertised = try advertise(args, port: server.port) } catch {
                server.stop()
                throw error
            }
            leases.hand { RedisLeases(redis: redis, hubAddress: advertised) }
            Console.error("tokencall serve: channels owned through \(redis) as \(advertised)")
        }
        Console.error("tokencall serve: listening on \(server.listening) — tokens for App ID \(config.appID), \(lifetime) s each"
                      + (config.requiredBearer == nil ? "" : ", bearer required")
                      + (origins.isEmpty ? "" : ", CORS for \(origins.joined(separator: ", "))")
                      + (mistake.map { ", then \($0.summary) to each caller on purpose (--misconfigure \($0.rawValue))" } ?? "")
                      + "; channel hub at /hub (\(config.tls == nil ? "WebSocket" : "WebSocket over TLS, wss://"))")
        Console.error("tokencall serve: web page at \(server.url.absoluteString)/ — your own pages load \(server.url.absoluteString)"
                      + "\(WebAssets.classicPath) (Docs/web.md)")
        if server.maxConnections < maxConnections {
            Console.error("tokencall serve: serving at most \(server.maxConnections) connections, not \(maxConnections): the process "
                          + "may open \(server.openFileLimit) files (ulimit -n); raise that limit to serve more")
        }
        waitForStop()
        Console.error("tokencall serve: stopping")
        server.stop()
        return ExitCode.ok
    }

    /// `--tls-cert` and `--tls-key`, read now: the server's TLS context, nil without them.
    static func tlsContext(_ args: Invocation) throws(UsageError) -> TLSContext? {
        switch (args[tlsCert], args[tlsKey]) {
        case (nil, nil): return nil
        case (_?, nil): throw args.error("--tls-cert needs --tls-key, the certificate's private key")
        case (nil, _?): throw args.error("--tls-key needs --tls-cert, the certificate it is the key of")
        case (let certificate?, let key?):
            do throws(TLSFailure) {
                return try TLSContext(certificateFile: certificate, keyFile: key)
            } catch {
                throw args.error("--tls-cert/--tls-key: \(error)")
            }
        }
    }
    /// `--allowed-host`'s names and the name in `--advertise`.
    static func allowedHosts(_ args: Invocation) throws(UsageError) -> [String] {
        let given = (args[allowedHost] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        func isName(_ name: Substring) -> Bool {
            !name.isEmpty && name.utf8.allSatisfy { $0 < 0x80 && (isalnum(Int32($0)) != 0 || "-._".utf8.contains($0)) }
        }
        for name in given where !isName(name.hasPrefix("*.") ? name.dropFirst(2) : name[...]) {
            throw args.error("--allowed-host takes names such as tokens.example.com (or *.example.com), comma-separated, without a "
                             + "scheme or port; \(name.escapedForPrinting) is not one")
        }
        let advertised = args[advertise].flatMap { URL(string: $0)?.host }
        return given + (advertised.map { [$0] } ?? [])
    }

    static func redisAddress(_ args: Invocation) throws(UsageError) -> RedisAddress? {
        guard let text = args[redis] else { return nil }
        do throws(RedisError) { return try RedisAddress(parsing: text) } catch { throw args.error("--redis: \(error)") }
    }

    /// The address clients reach this hub at: `--advertise`, or where it listens (not a wildcard address).
    static func advertise(_ args: Invocation, port: UInt16) throws(UsageError) -> String {
        let host = args[Self.host]
        let scheme = args.has(tlsCert) ? "wss://" : "ws://"
        let text = args[advertise] ?? "\(scheme)\(host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host):\(port)/hub"
        let given = text.hasPrefix("wss://") ? "wss://" : "ws://"
        guard text.hasPrefix(given), text.utf8.count <= 120,
              !text.utf8.contains(UInt8(ascii: "?")), !text.utf8.contains(UInt8(ascii: "@")),
              text.utf8.dropFirst(given.utf8.count).contains(UInt8(ascii: "/")) else {
            throw args.error("--advertise must be ws://HOST:PORT/PATH (wss:// with --tls-cert), without a query, at most 120 "
                             + "bytes (it travels in a close frame)")
        }
        if given == "ws://", args.has(tlsCert) {
            throw args.error("--advertise must be wss:// with --tls-cert: this hub speaks TLS only, and a client of a wss:// hub "
                             + "follows no redirect to ws://, where its token would cross the network unencrypted")
        }
        if text.hasPrefix("\(given)0.0.0.0:") || text.hasPrefix("\(given)[::]:") {
            throw args.error("listening on all addresses, the hub cannot tell the others where it is: give --advertise ws://HOST:PORT/hub")
        }
        return text
    }
}

/// The hub's leases, made once the server listens (the advertised address holds the port); until then there are no
/// joins to claim for. The store is made and started on the hub's loop, whichever of the two comes last.
final class LateLeases: ChannelLeases {
    /// What the command's thread and the hub's loop share: how to make the store, once known, and the leases once
    /// started on their loop.
    final class Handover: Sendable {
        private let state = Mutex<(started: LoopBound<LateLeases>?, make: (@Sendable () -> RedisLeases)?)>((nil, nil))

        /// Hands over how to make the store, from any thread.
        func hand(_ make: @escaping @Sendable () -> RedisLeases) {
            guard let started = state.withLock({ state in state.make = make; return state.started }) else { return }
            _ = started.loop.execute { started.value.begin(make(), on: started.loop) }
        }

        fileprivate func started(_ leases: LoopBound<LateLeases>) -> (@Sendable () -> RedisLeases)? {
            state.withLock { state in state.started = leases; return state.make }
        }
    }

    /// Until started: after, the handover reaches these leases through their loop.
    private var handover: Handover?
    /// The store once made: on the loop's thread only.
    private var running: RedisLeases?

    init(_ handover: Handover) { self.handover = handover }

    func start(on loop: EventLoop) {
        let make = handover?.started(LoopBound(self, on: loop))
        handover = nil
        if let make { begin(make(), on: loop) }
    }

    private func begin(_ store: RedisLeases, on loop: EventLoop) {
        store.start(on: loop)
        running = store
    }

    var leaseDuration: Duration { running?.leaseDuration ?? RedisLeases.defaultLeaseDuration }
    func claim(_ channel: String, _ answer: @escaping (ChannelClaim) -> Void) {
        guard let running else { return answer(.unknown("the hub is starting")) }
        running.claim(channel, answer)
    }
    func renew(_ channels: [String], _ answer: @escaping (Result<[String], LeaseStoreError>) -> Void) {
        guard let running else { return answer(.failure(LeaseStoreError("the hub is starting"))) }
        running.renew(channels, answer)
    }
    func release(_ channels: [String]) { running?.release(channels) }
    func finish(within limit: Duration, then done: @escaping () -> Void) {
        guard let running else { return done() }
        running.finish(within: limit, then: done)
    }
}
