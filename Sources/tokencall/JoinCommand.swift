import TLS
import AccessToken
import Arguments
import CallScreen
import CallSession
import ChannelEngine
import Dispatch
import Foundation
import HubClient
import Recording
import Timers
import TokenClient

/// `tokencall join`: a call through a token server, printed as event lines (the call screen comes later).
enum JoinCommand {
    static let speed: OptionKey<Int> = .integer(
        "speed", help: "run the call N times as fast (< and > change it, space pauses): at 3600 a 24 h token lives 24 s; a token from "
            + "--token-url or --token lives its lifetime from when it arrives", in: ClockPhase.speeds, default: 1)
    static let token = OptionKey<String?>.text(
        "token", "TOKEN", help: "join with this token (- reads one line of standard input); without --token-url, each next token is pasted by hand (p)"
    ).kept(.never)
    static let duration: OptionKey<Int?> = .integer("duration", "SECONDS", help: "leave and exit after this long, in the call's time",
                                                    in: 1...86_400 * 7)
    static let json: OptionKey<Bool> = .flag("json", help: "one JSON object per event (fields in Docs/events.md); implies --headless")
    static let headless: OptionKey<Bool> = .flag("headless", help: "print events instead of opening the call screen")

    static let options: [Option] = [
        CallOptions.channel.option, CallOptions.uid, CallOptions.account.option, CallOptions.role.option,
        TokenSourceOptions.tokenURL.option, token.option, TokenSourceOptions.tokenRequest.option, TokenSourceOptions.tokenField.option,
        TokenSourceOptions.expiresField.option, TokenSourceOptions.authBearer.option, TrustOptions.caFile.option,
        TokenSourceOptions.origin.option, TokenSourceOptions.requestTimeout.option, TokenSourceOptions.appID.option,
        TokenSourceOptions.appCertificate.option, CallOptions.tokenLifetime.option, MisconfigureOption.key.option,
        CallOptions.renewMethod.option, CallOptions.noAutoRenew.option, CallOptions.remoteUsers.option, CallOptions.seed.option,
        duration.option, speed.option, json.option, headless.option, ScreenOptions.fps.option, ScreenOptions.noColor.option,
        OutputOptions.record.option, hub.option, SDKOptions.sdk.option, SDKOptions.version.option,
    ] + outputOptions

    static let command = Command(
        "join", summary: "Join a simulated call and show its token lifecycle (the default command).", options: options,
        epilogue: """
        In a terminal it opens the call screen (press ? for the keys); otherwise, or with --headless, it prints events.
        Stop with q or Ctrl-C (or SIGTERM): the call leaves the channel. Exit status: 0, or 1 when a headless call ended failed.

        --token-request takes a name below or a template 'METHOD /path?query [JSON body]' (Docs/token-requests.md) whose
        placeholders are filled, each escaped for where it stands, with
        \(RequestTemplate.Placeholder.named.map { "{\($0.name)} \($0.value)" }.joined(separator: ", "))
        and {role:A|B} (A for a publisher, B for a subscriber). Names:
        \(HTTPTokenProvider.Shape.named.map { "  \($0.shape.description): \($0.shape.template) (\($0.server))" }.joined(separator: "\n"))
        """,
        run: run)

    /// Where the options say tokens come from: the user's server (the first token perhaps pasted), one `join` runs
    /// itself, or a person pasting each one.
    enum TokenServerChoice {
        case url(URL, shape: HTTPTokenProvider.Shape, bearer: String?, origin: String?, lifetime: UInt32, first: PastedToken?)
        case embedded(tokenLifetime: UInt32, mistake: TokenMistake?)
        case byHand(PastedToken)
    }

    /// The session configuration the options describe, and where its tokens come from.
    static func configuration(_ args: Invocation, hubLoop: HubClientLoop?) throws(UsageError) -> (CallSession.Configuration, TokenServerChoice) {
        var config = CallSession.Configuration()
        config.engine = .shared
        config.channel = try args.channel()
        config.user = try args.requiredUser()
        config.role = args[CallOptions.role]
        let tokenURL = try args.tokenURL()
        if tokenURL != nil {
            if args.has(MisconfigureOption.key) {
                throw args.error("--misconfigure makes the embedded server's tokens wrong; drop --token-url to use it "
                                 + "(a server of yours that errs is refused by the client as it is)")
            }
        } else if args.has(token), args.has(CallOptions.tokenLifetime) {
            throw args.error("--token-lifetime sets the embedded server; with --token and no --token-url none runs")
        } else if args.has(token), args.has(MisconfigureOption.key) {
            throw args.error("--misconfigure makes the embedded server's tokens wrong; with --token and no --token-url none runs")
        }
        let shape = try tokenSource(args, into: &config, url: tokenURL)
        config.renewMethod = args[CallOptions.renewMethod]
        config.autoRenew = !args[CallOptions.noAutoRenew]
        config.voice = SDKOptions.voice(args)
        let pasted = try pastedToken(args, into: &config)
        let lifetime = args[CallOptions.tokenLifetime]
        let server: TokenServerChoice = if let url = tokenURL {
            .url(url, shape: shape, bearer: args[TokenSourceOptions.authBearer], origin: try args.origin(), lifetime: lifetime, first: pasted)
        } else if let pasted {
            .byHand(pasted)
        } else {
            .embedded(tokenLifetime: lifetime, mistake: args[MisconfigureOption.key])
        }
        try joinHub(&config, args, server: server, loop: hubLoop)
        try callClock(&config, args, server: server)
        return (config, server)
    }

    /// What `join` and `test` read alike: the request shape (checked to carry the user to `url`), the token server's
    /// credentials and deadline, the App ID and certificate, the remote users and the seed.
    static func tokenSource(_ args: Invocation, into config: inout CallSession.Configuration, url: URL?) throws(UsageError)
        -> HTTPTokenProvider.Shape {
        let shape = try requestShape(args)
        if let url {
            // A shape that cannot carry the user (an account in fetch's integer uid) is refused before anything runs.
            do throws(TokenClientError) {
                _ = try HTTPTokenProvider(url: url, shape: shape).httpRequest(for: TokenRequest(channel: config.channel, user: config.user))
            } catch {
                let why = if case .unsendable(let why) = error { why } else { error.description }
                throw args.error("--token-request \(args[TokenSourceOptions.tokenRequest]): \(why)")
            }
        }
        try args.checkBearer()
        config.requestTimeout = try args.requestTimeout()
        try args.checkCredentials()
        config.appID = args[TokenSourceOptions.appID]
        config.appCertificate = args[TokenSourceOptions.appCertificate]
        config.remoteUsers = args[CallOptions.remoteUsers]
        config.seed = args[CallOptions.seed] ?? UInt64.random(in: 0...999_999)
        return shape
    }

    /// Puts the call — the session, its engine, the embedded server — on one clock that starts at `--speed` and whose
    /// speed `<`, `>` and space change. Tokens from outside (`--token-url`, `--token`) are made on the real clock: such a
    /// call runs on the call clock only when `--speed` is given, each token then living its lifetime of the call's time
    /// from when it arrives (`TokenWall.real`). A token request's deadline and the backoff after a failed one stay in real
    /// seconds, and the call's clock counts an exchange under way at 1× (the session holds it): the network does not speed up.
    static func callClock(_ config: inout CallSession.Configuration, _ args: Invocation, server: TokenServerChoice) throws(UsageError) {
        let speed = args[Self.speed]
        let embedded = if case .embedded = server { true } else { false }
        guard config.hub == nil, embedded || args.has(Self.speed) else { return }
        let realUnixTime = config.unixTime
        let clock = ScaledClock(speed: speed, unixTime: realUnixTime())
        config.clock = clock
        config.unixTime = { clock.unixTime }
        config.networkClock = ContinuousClock()
        if !embedded { config.tokenWall = .real(unixTime: realUnixTime) }
    }

    /// The request shape, checked against the options only `join` has.
    static func requestShape(_ args: Invocation) throws(UsageError) -> HTTPTokenProvider.Shape {
        let shape = try args.tokenRequestShape()
        for key in [TokenSourceOptions.tokenField, TokenSourceOptions.expiresField] where args.has(key) && !args.has(TokenSourceOptions.tokenURL) {
            throw args.error("--\(key.option.name) reads your server's answer; give --token-url too")
        }
        if args.has(TokenSourceOptions.origin), !args.has(TokenSourceOptions.tokenURL) {
            throw args.error("--origin goes with --token-url: it is sent to your server (the embedded one needs none)")
        }
        if args.has(TokenSourceOptions.tokenURL) { try args.checkLifetime(sentBy: shape) }
        return shape
    }

    /// Tokens from the user's server, from one started here (and stopped by `stop`), or pasted, over `transport`;
    /// nil when the server cannot start.
    static func tokens(_ choice: TokenServerChoice, for config: CallSession.Configuration,
                       transport: LoopHTTPTransport) -> (TokenOrigin, stop: () -> Void)? {
        switch choice {
        case .url(let url, let shape, let bearer, let origin, let lifetime, let first):
            let provider = HTTPTokenProvider(url: url, shape: shape, requestedLifetime: lifetime, bearer: bearer, origin: origin,
                                             transport: transport, unixTime: config.tokenUnixTime)
            return (.server(TokenSource(provider: provider, url: url), first: first), {})
        case .byHand(let token):
            return (.byHand(latest: token), {})
        case .embedded(let lifetime, let mistake):
            do {
                let server = try EmbeddedTokenServer(appID: config.appID, appCertificate: config.appCertificate, tokenLifetime: lifetime,
                                                     mistake: mistake, unixTime: config.unixTime)
                return (.server(server.source(for: config.user, transport: transport, unixTime: config.unixTime), first: nil), server.stop)
            } catch {
                Console.error("tokencall join: cannot start the embedded token server: \(error)")
                return nil
            }
        }
    }

    @MainActor
    static func run(_ args: Invocation) async throws(UsageError) -> Int32 {
        guard case .success(let hubLoop) = hubLoop(args) else { return ExitCode.failure }
        let (config, server) = try configuration(args, hubLoop: hubLoop)
        let output = try output(args)
        let duration = args[Self.duration]
        let fps = args[ScreenOptions.fps]
        let headless = args[Self.headless] || args[Self.json]
        let why = args[token] == "-" && isatty(STDIN_FILENO) != 1
            ? " (for the screen, give the token with --token TOKEN, or with --token - at the prompt in a terminal)" : ""
        let screen: Bool = switch output {
        case .none: !headless && CallScreenTerminal.available(for: "tokencall", why: why)
        default: !headless && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        }
        if case .cast = output, !screen {
            throw args.error("--cast records the call screen, and stdout or stdin is not a terminal")
        }
        let trust = try args.trust()
        let file = output.path.flatMap { create($0, args) }
        if output.path != nil && file == nil { return ExitCode.failure }
        let recordFile = args[OutputOptions.record].flatMap { create($0, args) }
        // A call that does not start leaves what was at the paths as it was.
        let discard = { file?.discard(); recordFile?.discard() }
        if args.has(OutputOptions.record) && recordFile == nil {
            discard()
            return ExitCode.failure
        }
        guard let (tokens, stopServer) = tokens(server, for: config, transport: .tokencall(trust: trust)) else {
            discard()
            return ExitCode.failure
        }
        defer { stopServer() }
        let session = CallSession(config, tokens: tokens)
        let recorder = recordFile.map { Self.recorder(args, into: $0, for: session) }
        if case .picture(_, let width, let height) = output, let file, let duration {
            let noColor = args[ScreenOptions.noColor] || !(ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
            return finish(recorder, status: await runPicture(session, into: file, width: width, height: height,
                                                             options: RenderOptions(colors: noColor ? 0 : 256, unicode: true),
                                                             duration: .seconds(duration)))
        }
        guard screen else {
            let status = await runHeadless(session, json: args[json], duration: duration.map { .seconds($0) })
            return finish(recorder, status: status)
        }
        let presenter: TerminalPresenter
        do throws(UsageError) { presenter = try CallScreenTerminal.presenter(args) } catch {
            discard()
            throw error
        }
        if let file { presenter.cast = cast(into: file, unixTime: config.unixTime()) }
        let app = CallScreenApp(session: session)
        let signals = StopSignals.onMain { app.quit() }
        let deadline = end(session, after: duration.map { .seconds($0) }) { app.quit() }
        defer {
            signals.forEach { $0.cancel() }
            deadline?.cancel()
        }
        let status = finish(recorder, status: await app.run(on: presenter, fps: fps))
        if let failure = presenter.cast?.finish() {
            Console.error("tokencall join: the recording stopped early: \(failure)")
            return ExitCode.failure
        }
        return status
    }

    /// Prints an event as headless `join` does (and `replay` again): a text or JSON line, the periodic reports left out.
    static func printHeadless(_ event: SessionEvent, json: Bool, in voice: SDKVoice) {
        guard !event.isPeriodic, let line = json ? event.jsonLine(in: voice) : event.textLine(in: voice) else { return }
        print(line)
        fflush(nil)
    }

    @MainActor
    static func runHeadless(_ session: CallSession, json: Bool, duration: Duration?) async -> Int32 {
        let config = session.configuration
        var failed = false
        session.observe { event in
            printHeadless(event, json: json, in: config.voice)
            switch event.kind {
            case .sessionEnded(let wasFailed): failed = wasFailed
            case .stuck: Task { @MainActor in session.stop() }
            default: break
            }
        }
        session.start()
        Console.error("tokencall join: seed \(config.seed)")
        let signals = StopSignals.onMain { session.stop() }
        let deadline = end(session, after: duration) { session.stop() }
        await session.untilEnded()
        signals.forEach { $0.cancel() }
        deadline?.cancel()
        return failed ? ExitCode.failure : ExitCode.ok
    }

    /// Runs `end` once `duration` of the call's time has passed (`--duration`; none without it); cancel the task when
    /// the call has ended otherwise.
    @MainActor
    static func end(_ session: CallSession, after duration: Duration?, _ end: @escaping @MainActor () -> Void) -> Task<Void, Never>? {
        guard let duration else { return nil }
        let clock = session.configuration.clock
        return Task { @MainActor in
            guard (try? await clock.sleep(for: duration)) != nil else { return }
            end()
        }
    }
}
