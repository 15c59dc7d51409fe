import Arguments
import ChannelEngine
import TLS
import BuiltInScenarios
import CallSession
import Foundation
import HubClient
import HubProtocol
import HubServer
import OutputFiles
import PrintableText
import ScenarioRunner
import Scenarios
import Timers
import TokenClient

/// `tokencall test SCENARIO...`: scenario files (or built-ins) run against a token server, a line each as it ends.
enum TestCommand {
    /// The options that mean here what they mean for `join`, taken from its table.
    static let shared = [CallOptions.channel.option, CallOptions.uid, CallOptions.account.option, TokenSourceOptions.tokenURL.option,
                         TokenSourceOptions.tokenRequest.option, TokenSourceOptions.tokenField.option, TokenSourceOptions.expiresField.option,
                         TokenSourceOptions.authBearer.option, TrustOptions.caFile.option, TokenSourceOptions.origin.option,
                         TokenSourceOptions.requestTimeout.option, TokenSourceOptions.appID.option, TokenSourceOptions.appCertificate.option,
                         CallOptions.tokenLifetime.option, CallOptions.remoteUsers.option, CallOptions.seed.option, hub.option,
                         SDKOptions.sdk.option, SDKOptions.version.option]

    /// `--hub URL`, read as join reads it (`JoinCommand.hubAddress`).
    static let hub = JoinCommand.hubKey(
        help: "run the scenarios' people on this hub, ws://HOST:PORT/hub of tokencall serve, at --speed 1 (the people on a hub meet in real "
            + "time); without it a scenario with B: steps runs a hub in this process, on the call's clock")

    /// `--speed`: nil at max, where the call's time leaps.
    static let speed: OptionKey<Int?> = .parsed(
        "speed", "N", help: "max: the call's time leaps from timer to timer and stands while a request is under way; or run it N times as fast, "
            + "\(ClockPhase.speeds.lowerBound)...\(ClockPhase.speeds.upperBound)", default: "max",
        must: "max or an integer from \(ClockPhase.speeds.lowerBound) to \(ClockPhase.speeds.upperBound)") { text in
        text == "max" ? .some(nil) : Int(text).flatMap { ClockPhase.speeds.contains($0) ? .some($0) : nil }
    }
    static let list: OptionKey<Bool> = .flag("list", help: "list the built-in scenarios and exit")
    static let json: OptionKey<Bool> = .flag("json", help: "one JSON object per scenario, and one for the totals, instead of the lines")

    static let command = Command(
        "test", summary: "Run scenario files against a token server: each step an action on a call or a check of its events.",
        options: shared + [
            speed.option, list.option, JUnitReport.junit.option, json.option, artifacts.option,
        ],
        positionals: [Positional("SCENARIO", help: "a scenario file, or a built-in's name (--list)", required: false, repeats: true)],
        epilogue: """
        The scenario language, the built-ins and examples for CI are in Docs/ci.md. A line per scenario as it ends, then
        N passed, N failed. Exit status: 0 every scenario passed, 1 one failed, 64 usage error or a scenario that does not read.
        """,
        run: run)

    /// Where a call's time starts at --speed max: a fixed instant, so that a seed and the same answers replay a run event
    /// by event (2027-01-15 08:00 UTC).
    static let leapingStart: Double = 1_800_000_000

    @MainActor
    static func run(_ args: Invocation) async throws(UsageError) -> Int32 {
        if args[list] {
            for (name, text) in BuiltInScenarios.all {
                let first = String(decoding: text, as: UTF8.self).split(separator: "\n").first.map { $0.drop { $0 == "#" || $0 == " " } } ?? ""
                print("\(name)  \(first)")
            }
            return ExitCode.ok
        }
        guard !args.positionals.isEmpty else { throw args.error("name a scenario file or a built-in (tokencall test --list)") }
        let (base, server) = try configuration(args)
        let hubAddress = try hub(args, base, server: server)
        let speed = hubAddress == nil ? args[Self.speed] : 1
        let trust = try args.trust()
        var scenarios: [(Scenario, file: String)] = []
        for given in args.positionals {
            switch read(given) {
            case .success(let read): scenarios.append(read)
            case .failure(let words):
                Console.error("tokencall test: \(words.words)")
                return ExitCode.usage
            }
        }
        if hubAddress == nil, case .url = server, base.appID == nil || base.appCertificate == nil,
           let two = scenarios.first(where: { $0.0.hasSecondParticipant }) {
            throw args.error("\(two.0.name.escapedForPrinting) has B: steps, so it runs on a hub that checks your server's tokens: give "
                             + "--app-id and --app-certificate of your token server (or APP_ID and APP_CERTIFICATE), or --hub URL of a hub "
                             + "that knows them")
        }
        let hubLoop: HubClientLoop?
        switch JoinCommand.hubLoop(args) {
        case .success(let loop): hubLoop = loop
        case .failure: return ExitCode.failure
        }
        let userHub = hubAddress.flatMap { address in hubLoop.map { (address: address, loop: $0) } }
        let folder = try artifactsFolder(args)
        guard case .success(let junit) = JUnitReport.file(args, for: "test") else { return ExitCode.failure }
        Console.error("tokencall test: seed \(base.seed)")
        let options = args.kept(leavingOut: [JUnitReport.junit.option, artifacts.option, json.option, list.option, Self.speed.option])
        var results: [(file: String, outcome: ScenarioRun.Outcome, seconds: Double)] = []
        for (scenario, file) in scenarios {
            let started = ContinuousClock.now
            var kept: [ScenarioParticipant: Artifacts]?
            if let folder {
                kept = Self.artifacts(in: folder, for: scenario)
                if kept == nil {
                    junit?.discard()
                    return ExitCode.failure
                }
            }
            let outcome = await run(scenario, base: base, server: server, hub: userHub, speed: speed, trust: trust, artifacts: kept,
                                    options: options)
            guard let outcome else {
                junit?.discard()
                return ExitCode.failure
            }
            let seconds = (ContinuousClock.now - started).secondsValue
            results.append((file, outcome, seconds))
            print(args[json] ? jsonLine(outcome, seconds: seconds) : textLines(outcome, seconds: seconds))
            fflush(nil)
        }
        let failed = results.count { !$0.outcome.passed }
        print(args[json] ? #"{"passed": \#(results.count - failed), "failed": \#(failed)}"# : "\(results.count - failed) passed, \(failed) failed")
        if let junit, !report(results, in: base.voice).write(to: junit, for: "test") { return ExitCode.failure }
        return failed == 0 ? ExitCode.ok : ExitCode.failure
    }

    /// The results as JUnit XML: a testsuite per scenario file, a testcase per scenario, the failing step's line and
    /// words as its failure, the call's events (the periodic reports left out) as its system-out.
    static func report(_ results: [(file: String, outcome: ScenarioRun.Outcome, seconds: Double)], in voice: SDKVoice) -> JUnitReport {
        JUnitReport(name: "tokencall test", suites: results.map { file, outcome, seconds in
            var test = JUnitReport.Case(classname: "tokencall.test", name: outcome.scenario, file: file, seconds: seconds)
            test.failure = outcome.failure.map { failure in
                (failure.description, (["\(file):\(failure.line): \(failure.step)", failure.words, "the last events:"] + failure.lastEvents)
                    .joined(separator: "\n"))
            }
            test.output = story(outcome, in: voice).joined(separator: "\n")
            return JUnitReport.Suite(name: file, cases: [test])
        })
    }

    /// The calls' events as lines, the periodic reports left out: A's; with B's, both in the order of their times, each
    /// line after its participant's prefix.
    static func story(_ outcome: ScenarioRun.Outcome, in voice: SDKVoice) -> [String] {
        func told(_ events: [SessionEvent]) -> [(time: Duration, line: String)] {
            events.filter { !$0.isPeriodic }.compactMap { event in event.textLine(in: voice).map { (event.time, $0) } }
        }
        let a = told(outcome.events)
        guard !outcome.eventsOfB.isEmpty else { return a.map(\.line) }
        let b = told(outcome.eventsOfB)
        var (i, j) = (0, 0)
        var lines: [String] = []
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && a[i].time <= b[j].time) {
                lines.append("A: " + a[i].line)
                i += 1
            } else {
                lines.append("B: " + b[j].line)
                j += 1
            }
        }
        return lines
    }

    /// A scenario from a file, or a built-in by name; what is wrong in words (`file:line: ...`) otherwise.
    static func read(_ given: String) -> Result<(Scenario, file: String), ScenarioWords> {
        let bytes: [UInt8], name: String
        if let builtIn = BuiltInScenarios.all.first(where: { $0.name == given }), !FileManager.default.fileExists(atPath: given) {
            (bytes, name) = (builtIn.text, builtIn.name)
        } else {
            guard let handle = FileHandle(forReadingAtPath: given) else {
                let names = BuiltInScenarios.all.map(\.name)
                return .failure(ScenarioWords("\(given.escapedForPrinting): no such file, nor a built-in scenario (\(names.joined(separator: ", ")))"))
            }
            defer { try? handle.close() }
            guard let data = try? handle.read(upToCount: Scenario.byteLimit + 1) else {
                return .failure(ScenarioWords("\(given.escapedForPrinting): cannot be read"))
            }
            bytes = Array(data)
            let base = URL(fileURLWithPath: given).lastPathComponent
            name = base.hasSuffix(".scenario") ? String(base.dropLast(".scenario".count)) : base
        }
        do throws(ScenarioError) {
            return .success((try Scenario(parsing: bytes, name: name, file: given, vocabulary: .session), given))
        } catch {
            return .failure(ScenarioWords(error.description))
        }
    }

    /// A refusal of a scenario, in words.
    struct ScenarioWords: Error {
        let words: String
        init(_ words: String) { self.words = words }
    }

    /// The call every scenario starts from, and where its tokens come from.
    static func configuration(_ args: Invocation) throws(UsageError) -> (CallSession.Configuration, JoinCommand.TokenServerChoice) {
        var config = CallSession.Configuration()
        config.channel = try args.channel()
        config.user = try args.requiredUser()
        config.voice = SDKOptions.voice(args)
        let tokenURL = try args.tokenURL()
        let shape = try JoinCommand.tokenSource(args, into: &config, url: tokenURL)
        let lifetime = args[CallOptions.tokenLifetime]
        let server: JoinCommand.TokenServerChoice = if let url = tokenURL {
            .url(url, shape: shape, bearer: args[TokenSourceOptions.authBearer], origin: try args.origin(), lifetime: lifetime, first: nil)
        } else {
            .embedded(tokenLifetime: lifetime, mistake: nil)
        }
        return (config, server)
    }

    /// `--hub URL`, checked: the hub runs on the real clock, so the test runs at --speed 1; the embedded token server's
    /// tokens need the hub's credentials.
    static func hub(_ args: Invocation, _ base: CallSession.Configuration, server: JoinCommand.TokenServerChoice) throws(UsageError)
        -> HubAddress? {
        guard let address = try JoinCommand.hubAddress(args) else { return nil }
        if args.has(speed), args[speed] != 1 {
            throw args.error("--hub runs at --speed 1 only: a hub counts a token's life and a silence on the real clock; "
                             + "drop --speed (or give --speed 1), or drop --hub for a hub in this process at any speed")
        }
        if case .embedded = server, base.appID == nil || base.appCertificate == nil {
            throw args.error("--hub with the embedded token server needs the hub's --app-id and --app-certificate (or APP_ID and "
                             + "APP_CERTIFICATE, as tokencall serve reads them), so that the hub takes its tokens; "
                             + "or give --token-url of the hub's own token server")
        }
        return address
    }

    /// Runs one scenario on calls of their own (their own clock and, without --token-url, their own embedded server):
    /// A's, and B's when a step names B, both on `hub` (`--hub`), or on a hub in this process when B is there and no
    /// hub was given; nil when the embedded server cannot start.
    @MainActor
    static func run(_ scenario: Scenario, base: CallSession.Configuration, server: JoinCommand.TokenServerChoice,
                    hub: (address: HubAddress, loop: HubClientLoop)?, speed: Int?, trust: TLSTrust, artifacts: [ScenarioParticipant: Artifacts]?,
                    options: [String: String]) async -> ScenarioRun.Outcome? {
        var config = base
        let realUnixTime = config.unixTime
        let time: ScenarioRun.Time
        let clock: ScaledClock
        if let speed {
            clock = ScaledClock(speed: speed, unixTime: realUnixTime())
            time = .running
        } else {
            let leap = LeapClock(unixTime: leapingStart)
            clock = ScaledClock(speed: 1, base: leap, unixTime: leapingStart)
            time = .leaping(leap)
        }
        config.clock = clock
        config.unixTime = { clock.unixTime }
        config.networkClock = ContinuousClock()
        if case .url = server { config.tokenWall = .real(unixTime: realUnixTime) }
        let participants: [ScenarioParticipant] = scenario.hasSecondParticipant ? [.a, .b] : [.a]
        var configs: [ScenarioParticipant: CallSession.Configuration] = [:]
        for who in participants { configs[who] = ScenarioRun.configuration(participant(who, of: config), for: scenario, participant: who) }
        guard let (tokens, stop) = Self.tokens(server, for: configs, trust: trust) else {
            discard(artifacts)
            return nil
        }
        defer { stop() }
        let links: (() -> any HubLink)?, address: String?
        if let hub {
            links = { HubConnection(address: hub.address.routed(to: config.channel), loop: hub.loop, trust: trust) }
            address = hub.address.description
        } else if scenario.hasSecondParticipant, let appID = config.appID ?? tokens[.a]?.ownServer?.appID,
                  let certificate = config.appCertificate ?? tokens[.a]?.ownServer?.appCertificate {
            // Tokens from the user's server are made on the real wall, which a leaping call leaves: each lives its
            // lifetime of the call's time from its first arrival, on the hub as in the engine (`TokenWall`).
            let wall = config.tokenWall, unixTime = config.unixTime
            let other: HubServer.Configuration.OtherWall? = if case .real = wall {
                .init(unixTime: config.tokenUnixTime, end: { token in
                    Int64(wall.callTime(of: token.joinDeadline, in: token, arrivingAt: unixTime()).rounded(.down))
                })
            } else {
                nil
            }
            let local = LocalHub(appID: appID, appCertificate: certificate, clock: clock, unixTime: unixTime, tokenWall: other)
            links = local.link
            address = "this process"
        } else {
            (links, address) = (nil, nil)
        }
        var calls: [ScenarioParticipant: ScenarioRun.Call] = [:]
        for (who, var config) in configs {
            guard let origin = tokens[who] else { continue }
            if let links, let address {
                config.hub = CallSession.Hub(address: address, link: links())
                // The others in the channel are the people on the hub, unless --remote-users asks for simulated ones too.
                if !options.keys.contains(CallOptions.remoteUsers.option.name) { config.remoteUsers = 0 }
            }
            calls[who] = ScenarioRun.Call(configuration: config, tokens: origin)
        }
        let run = ScenarioRun(scenario, calls: calls, time: time)
        if let artifacts { record(run, into: artifacts, options: options) }
        let outcome = await run.run()
        if let artifacts, !finish(artifacts) { return nil }
        return outcome
    }

    /// `base` as `who` joins: A as the options say; B as uid 0 (the engine or the hub gives it one), or the uid after
    /// --uid N, with a seed of its own.
    static func participant(_ who: ScenarioParticipant, of base: CallSession.Configuration) -> CallSession.Configuration {
        guard who == .b else { return base }
        var config = base
        config.user = if case .uid(let uid) = base.user, uid != 0 { .uid(uid == UInt32.max ? uid - 1 : uid + 1) } else { .uid(0) }
        config.seed = base.seed &+ 1
        return config
    }

    /// Each call's tokens: from the user's server, or from one embedded server they share (stopped by `stop`), each
    /// call's requests on a connection of its own; nil (said on stderr) when the embedded server cannot start.
    static func tokens(_ choice: JoinCommand.TokenServerChoice, for configs: [ScenarioParticipant: CallSession.Configuration],
                       trust: TLSTrust) -> ([ScenarioParticipant: TokenOrigin], stop: () -> Void)? {
        guard let a = configs[.a] else { return nil }
        // A call has one exchange under way at a time: one kept-alive connection serves its whole run.
        let transport = { LoopHTTPTransport.tokencall(trust: trust, connectionsPerOrigin: 1) }
        guard case .embedded(let lifetime, let mistake) = choice else {
            var origins: [ScenarioParticipant: TokenOrigin] = [:]
            for (who, config) in configs {
                guard let (origin, _) = JoinCommand.tokens(choice, for: config, transport: transport()) else { return nil }
                origins[who] = origin
            }
            return (origins, {})
        }
        do {
            let server = try EmbeddedTokenServer(appID: a.appID, appCertificate: a.appCertificate, tokenLifetime: lifetime,
                                                 mistake: mistake, unixTime: a.unixTime)
            let origins = configs.mapValues { config in
                TokenOrigin.server(server.source(for: config.user, transport: transport(), unixTime: config.unixTime), first: nil)
            }
            return (origins, server.stop)
        } catch {
            Console.error("tokencall test: cannot start the embedded token server: \(error)")
            return nil
        }
    }

    /// `PASS name (...)` or `FAIL name: line N: ...` with the last events below it.
    static func textLines(_ outcome: ScenarioRun.Outcome, seconds: Double) -> String {
        let timing = "\(SessionEvent.decimal(outcome.callTime))s of call time in \(String(format: "%.2f", seconds))s"
        guard let failure = outcome.failure else { return "PASS \(outcome.scenario) (\(timing))" }
        return (["FAIL \(outcome.scenario): \(failure) (\(timing)); the last events:"] + failure.lastEvents.map { "    " + $0 })
            .joined(separator: "\n")
    }

    static func jsonLine(_ outcome: ScenarioRun.Outcome, seconds: Double) -> String {
        var parts = [#""scenario": \#(outcome.scenario.jsonQuoted)"#, #""passed": \#(outcome.passed)"#,
                     #""callTime": \#(SessionEvent.decimal(outcome.callTime))"#, #""seconds": \#(String(format: "%.3f", seconds))"#]
        if let failure = outcome.failure {
            parts += [#""line": \#(failure.line)"#, #""step": \#(failure.step.jsonQuoted)"#, #""failure": \#(failure.words.jsonQuoted)"#,
                      #""lastEvents": [\#(failure.lastEvents.map(\.jsonQuoted).joined(separator: ", "))]"#]
        }
        return "{" + parts.joined(separator: ", ") + "}"
    }
}
