import Arguments
import Foundation
import HubClient
import HubLoad
import HubProtocol
import TokenClient

/// `tokencall load`: many headless clients against a hub and its token server, or the token server alone.
enum LoadCommand {
    /// Options that mean here what they mean for `join`, taken from there.
    static let shared = ["token-request", "token-field", "expires-field", "auth-bearer", "origin", "ca-file", "request-timeout"]
        .compactMap { name in JoinCommand.options.first { $0.name == name } }

    static let command = Command(
        "load", summary: "Load a hub and its token server with many headless clients; print latencies and errors.",
        options: [
            JoinCommand.hubKey(help: "the hub, ws://HOST:PORT/hub").option,
            .flag("no-hub", help: "load the token server alone: every client fetches at once, then renews at once "
                  + "(it overrides a hub from the environment)"),
            .value("token-url", "URL", help: "the token server the clients fetch from", environment: ["TOKENCALL_TOKEN_URL"]),
        ] + shared + [
            .value("clients", "N", help: "clients in this process, \(LoadPlan.clientRange.lowerBound)...\(LoadPlan.clientRange.upperBound)",
                   default: "100"),
            .value("channels", "M", help: "channels; client k joins load-(k mod M), 1...clients", otherwise: "10, or one per client when fewer"),
        ] + hubOnly + [
            .flag("json", help: "print one JSON object (fields in Docs/load.md)"),
        ],
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
            if !args.has("json") {
                print("tokencall load: \(plan.clients) clients in \(plan.channels) channels on \(hub) for \(plan.duration.components.seconds) s, "
                      + "\(plan.framesPerSecond) video frame\(plan.framesPerSecond == 1 ? "" : "s") a second each"
                      + (plan.rampUp > .zero ? ", arriving over \(plan.rampUp.components.seconds) s" : ""))
            }
            figures = await HubLoadRun.run(plan, hub: hub, loops: loops, trust: try args.trust())
        } else {
            if !args.has("json") { print("tokencall load: \(plan.clients) clients fetching at once, then renewing at once") }
            figures = await TokenStampede.run(plan)
        }
        print(args.has("json") ? figures.json : figures.text)
        if let limit = limitHit(figures.errors) { Console.error("tokencall load: \(limit)") }
        return figures.errors.isEmpty ? ExitCode.ok : ExitCode.failure
    }

    /// The limit a run that was answered "busy" (429 or 503) most likely hit, and the options that lift it; nil when
    /// nothing was. Every client comes from this one address, and `serve`'s limits are per address and in all.
    static func limitHit(_ errors: [String: Int]) -> String? {
        let busy = errors.filter { $0.key.hasSuffix(TokenClientError.rateLimited(status: 503, retryAfter: nil).kind) }.values.reduce(0, +)
        guard busy > 0 else { return nil }
        func limit(_ name: String) -> String {
            "--\(name) (\(ServeCommand.command.options.first { $0.name == name }?.defaultValue ?? "?"))"
        }
        return "\(busy) token requests were answered busy (HTTP 429 or 503): every client connects from this one address, "
            + "and tokencall serve refuses connections beyond \(limit("max-connections-per-address")) from one address and "
            + "\(limit("max-connections")) in all; start it with both above --clients"
    }

    /// The options of clients in a hub, which --no-hub refuses; their help says so.
    static let hubOnly: [Option] = [
        .value("duration", "SECONDS", help: "how long the clients stay, "
               + "\(LoadPlan.durationRange.lowerBound)...\(LoadPlan.durationRange.upperBound); with --hub only", default: "10"),
        .value("ramp-up", "SECONDS", help: "how long the clients take to arrive, evenly, shorter than the duration "
               + "(0: all at once); with --hub only", default: "0"),
        .value("fps", "N", help: "video frames each client sends a second, "
               + "\(LoadPlan.framesPerSecondRange.lowerBound)...\(LoadPlan.framesPerSecondRange.upperBound); with --hub only", default: "1"),
    ]

    /// Connections to the token server for each core, when the clients are in a hub.
    static let fetchConnectionsPerCore = 4
    static var cores: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    static func read(_ args: Invocation) throws(UsageError) -> (LoadPlan, HubAddress?) {
        // --no-hub is the user's word for this run; TOKENCALL_HUB only a default it overrides.
        let hubGiven = args.has("hub") && !(args.has("no-hub") && args.isFromEnvironment("hub"))
        let hub: HubAddress?
        switch (hubGiven, args.has("no-hub")) {
        case (true, true): throw args.error("give --hub or --no-hub, not both")
        case (false, false): throw args.error("give --hub ws://HOST:PORT/hub, or --no-hub to load the token server alone")
        case (true, false): hub = try JoinCommand.hubAddress(args)
        case (false, true):
            hub = nil
            for name in hubOnly.map(\.name) where args.has(name) {
                throw args.error("--\(name) is for clients in a hub; --no-hub fetches a token a client, then renews it, and ends")
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
        let clients: Int = try args.integer("clients", in: LoadPlan.clientRange)
        // Clients in a hub fetch over a few kept-alive connections a core, in turn, so that a thousand fetches at once
        // (the join storm, every renewal at the warning) leave the clients' loops the cores; --no-hub's stampede opens a
        // connection for every fetch at once, as the fleet it plays would.
        let connections = hub == nil ? LoadPlan.clientRange.upperBound : Self.fetchConnectionsPerCore * Self.cores
        let provider = HTTPTokenProvider(url: url, shape: shape, bearer: args.string("auth-bearer"), origin: try args.origin(),
                                         transport: LoopHTTPTransport.tokencall(trust: try args.trust(), connectionsPerOrigin: connections))
        let duration: Int = try args.integer("duration", in: LoadPlan.durationRange)
        let rampUp: Int = try args.integer("ramp-up", in: 0...(LoadPlan.durationRange.upperBound - 1))
        guard rampUp < duration else {
            throw args.error("--ramp-up \(rampUp) must be shorter than --duration \(duration): the last clients would arrive after the run")
        }
        let plan = LoadPlan(provider: provider, clients: clients, channels: try args.integer("channels", in: 1...clients) ?? min(10, clients),
                            duration: .seconds(duration), framesPerSecond: try args.integer("fps", in: LoadPlan.framesPerSecondRange),
                            requestTimeout: try args.requestTimeout(), rampUp: .seconds(rampUp))
        return (plan, hub)
    }
}
