import Arguments
import Foundation
import HubClient
import HubLoad
import HubProtocol
import TokenClient
import Timers

/// `tokencall load`: many headless clients against a hub and its token server, or the token server alone.
enum LoadCommand {
    /// Options that mean here what they mean for `join`, taken from there.
    static let shared = [TokenSourceOptions.tokenRequest.option, TokenSourceOptions.tokenField.option, TokenSourceOptions.expiresField.option,
                         TokenSourceOptions.authBearer.option, TokenSourceOptions.origin.option, TrustOptions.caFile.option,
                         TokenSourceOptions.requestTimeout.option]

    static let hub = JoinCommand.hubKey(help: "the hub, ws://HOST:PORT/hub")
    static let noHub: OptionKey<Bool> = .flag("no-hub", help: "load the token server alone: every client fetches at once, then renews at once "
                                              + "(it overrides a hub from the environment)")
    static let tokenURL: OptionKey<String?> = .text("token-url", "URL", help: "the token server the clients fetch from",
                                                    environment: ["TOKENCALL_TOKEN_URL"])
    static let clients: OptionKey<Int> = .integer("clients", help: "clients in this process", in: LoadPlan.clientRange, default: 100)
    static let channels: OptionKey<Int?> = .integer("channels", "M", help: "channels, at most --clients; client k joins load-(k mod M)",
                                                    in: LoadPlan.clientRange, otherwise: "10, or one per client when fewer")
    static let duration: OptionKey<Int> = .integer("duration", "SECONDS", help: "how long the clients stay; with --hub only",
                                                   in: LoadPlan.durationRange, default: 10)
    static let rampUp: OptionKey<Int> = .integer(
        "ramp-up", "SECONDS", help: "how long the clients take to arrive, evenly, shorter than the duration (0: all at once); with --hub only",
        in: 0...(LoadPlan.durationRange.upperBound - 1), default: 0)
    static let fps: OptionKey<Int> = .integer("fps", help: "video frames each client sends a second; with --hub only",
                                              in: LoadPlan.framesPerSecondRange, default: 1)
    static let json: OptionKey<Bool> = .flag("json", help: "print one JSON object (fields in Docs/load.md)")

    static let command = Command(
        "load", summary: "Load a hub and its token server with many headless clients; print latencies and errors.",
        options: [hub.option, noHub.option, tokenURL.option] + shared + [clients.option, channels.option] + hubOnly.map(\.option)
            + [json.option],
        epilogue: """
        Each client fetches its token, joins, renews on tokenPrivilegeWillExpire and sends flat \
        \(HubVideoFrame.sentColumns)x\(HubVideoFrame.sentRows) frames; the
        figures are p50/p99 latencies of token fetches, joins (join sent to joined), renewals (warning to
        renewTokenResult, the fetch included) and video fan-out (sent to received), errors by kind and connections
        lost. Details in Docs/load.md. Exit status: 0 without errors, 1 with any, 64 usage error.
        """,
        run: run)

    @MainActor
    static func run(_ args: Invocation) async throws(UsageError) -> Int32 {
        let (plan, hub) = try read(args)
        let figures: LoadFigures
        if let hub {
            // A loop a core: the clients' reading and decoding is the load's own work, not the hub's.
            let loops: [HubClientLoop]
            do { loops = try (0..<cores).map { _ in try HubClientLoop() } } catch {
                Console.error("tokencall load: \(error); raise the open-file limit (ulimit -n)")
                return ExitCode.failure
            }
            if !args[json] {
                print("tokencall load: \(plan.clients) clients in \(plan.channels) channels on \(hub) for \(plan.duration.wholeSeconds) s, "
                      + "\(plan.framesPerSecond) video frame\(plan.framesPerSecond == 1 ? "" : "s") a second each"
                      + (plan.rampUp > .zero ? ", arriving over \(plan.rampUp.wholeSeconds) s" : ""))
            }
            figures = await HubLoadRun.run(plan, hub: hub, loops: loops, trust: try args.trust())
        } else {
            if !args[json] { print("tokencall load: \(plan.clients) clients fetching at once, then renewing at once") }
            figures = await TokenStampede.run(plan)
        }
        print(args[json] ? figures.json : figures.text)
        if let limit = limitHit(figures.errors) { Console.error("tokencall load: \(limit)") }
        return figures.errors.isEmpty ? ExitCode.ok : ExitCode.failure
    }

    /// The limit a run that was answered "busy" (429 or 503) most likely hit, and the options that lift it; nil when
    /// nothing was. Every client comes from this one address, and `serve`'s limits are per address and in all.
    static func limitHit(_ errors: [String: Int]) -> String? {
        let busy = errors.filter { $0.key.hasSuffix(TokenClientError.rateLimited(status: 503, retryAfter: nil).kind) }.values.reduce(0, +)
        guard busy > 0 else { return nil }
        func limit(_ option: Option) -> String { "--\(option.name) (\(option.defaultValue ?? "?"))" }
        return "\(busy) token requests were answered busy (HTTP 429 or 503): every client connects from this one address, "
            + "and tokencall serve refuses connections beyond \(limit(ServeCommand.maxConnectionsPerAddress.option)) from one address and "
            + "\(limit(ServeCommand.maxConnections.option)) in all; start it with both above --clients"
    }

    /// The options of clients in a hub, which --no-hub refuses; their help says so.
    static let hubOnly = [duration, rampUp, fps]

    /// Connections to the token server for each core, when the clients are in a hub.
    static let fetchConnectionsPerCore = 4
    static var cores: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    static func read(_ args: Invocation) throws(UsageError) -> (LoadPlan, HubAddress?) {
        // --no-hub is the user's word for this run; TOKENCALL_HUB only a default it overrides.
        let hubGiven = args.has(Self.hub) && !(args[noHub] && args.isFromEnvironment(Self.hub))
        let hub: HubAddress?
        switch (hubGiven, args[noHub]) {
        case (true, true): throw args.error("give --hub or --no-hub, not both")
        case (false, false): throw args.error("give --hub ws://HOST:PORT/hub, or --no-hub to load the token server alone")
        case (true, false): hub = try JoinCommand.hubAddress(args)
        case (false, true):
            hub = nil
            for key in hubOnly where args.has(key) {
                throw args.error("--\(key.option.name) is for clients in a hub; --no-hub fetches a token a client, then renews it, and ends")
            }
        }
        guard let url = try args.tokenURL() else { throw args.error("give --token-url, the token server the clients fetch from") }
        try args.checkBearer()
        let shape = try args.tokenRequestShape()
        do throws(TokenClientError) {
            _ = try HTTPTokenProvider(url: url, shape: shape).httpRequest(for: TokenRequest(channel: "load-0", user: .uid(1)))
        } catch {
            throw args.error("--token-request: \(error)")
        }
        let clients = args[Self.clients]
        // Clients in a hub fetch over a few kept-alive connections a core, in turn, so that a thousand fetches at once
        // (the join storm, every renewal at the warning) leave the clients' loops the cores; --no-hub's stampede opens a
        // connection for every fetch at once, as the fleet it plays would.
        let connections = hub == nil ? LoadPlan.clientRange.upperBound : Self.fetchConnectionsPerCore * Self.cores
        let provider = HTTPTokenProvider(url: url, shape: shape, bearer: args[TokenSourceOptions.authBearer], origin: try args.origin(),
                                         transport: LoopHTTPTransport.tokencall(trust: try args.trust(), connectionsPerOrigin: connections))
        let duration = args[Self.duration]
        let rampUp = args[Self.rampUp]
        guard rampUp < duration else {
            throw args.error("--ramp-up \(rampUp) must be shorter than --duration \(duration): the last clients would arrive after the run")
        }
        let channels = args[Self.channels] ?? min(10, clients)
        guard channels <= clients else { throw args.error("--channels must be an integer from 1 to \(clients) (--clients), not \"\(channels)\"") }
        let plan = LoadPlan(provider: provider, clients: clients, channels: channels,
                            duration: .seconds(duration), framesPerSecond: args[fps],
                            requestTimeout: try args.requestTimeout(), rampUp: .seconds(rampUp))
        return (plan, hub)
    }
}
