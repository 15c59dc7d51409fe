import Arguments
import CallScreen
import CallSession
import Recording
import Timers

/// `tokencall replay FILE`: a recording of `join --record` on the call screen, or its events printed again.
enum ReplayCommand {
    static let command = Command(
        "replay", summary: "Play a recording of join --record back on the call screen, or print its events.",
        options: [
            .value("speed", "N", help: "play N times as fast, \(ClockPhase.speeds.lowerBound)...\(ClockPhase.speeds.upperBound) "
                   + "(< and > change it, space pauses)", default: "1"),
            .flag("json", help: "print the recorded events as join --json printed them; implies --headless"),
            .flag("headless", help: "print the recorded events as join --headless printed them"),
            .value("fps", "N", help: "frames per second of the call screen, 1...60", default: "15"),
            .flag("no-color", help: "no colours on the call screen (also NO_COLOR)"),
        ] + SDKOptions.options(defaulted: false),
        positionals: [Positional("FILE", help: "a recording written by join --record")],
        epilogue: """
        Printing is at once, whatever --speed. Exit status: 0; 1 when the file cannot be read or is not a recording, or when
        a printed call ended failed, as join's did.
        """,
        run: run)

    @MainActor
    static func run(_ args: Invocation) async throws(UsageError) -> Int32 {
        let speed: Int = try args.integer("speed", in: ClockPhase.speeds)
        let fps: Int = try args.integer("fps", in: 1...60)
        let headless = args.has("headless") || args.has("json")
        let recording: Recording
        do {
            recording = try Recording.read(path: args.positionals[0])
        } catch {
            Console.error("tokencall replay: \(error)")
            return ExitCode.failure
        }
        let voice = try SDKOptions.voice(args, else: recording.header.call.voice)
        guard !headless, CallScreenTerminal.available(for: "tokencall replay") else {
            var failed = false
            for event in recording.events {
                JoinCommand.printHeadless(event, json: args.has("json"), in: voice)
                if case .sessionEnded(let wasFailed) = event.kind { failed = wasFailed }
            }
            return failed ? ExitCode.failure : ExitCode.ok
        }
        guard let presenter = CallScreenTerminal.presenter(args) else { return ExitCode.usage }
        let call = recording.header.call
        let clock = ScaledClock(speed: speed, unixTime: recording.header.started)
        let state = ScreenState(channel: call.channel, uid: call.uid, account: call.account, role: call.role, tokenServer: call.tokenServer,
                                renewMethod: call.renewMethod, autoRenew: call.autoRenew, mode: .replay(ended: false), clock: clock.phase,
                                voice: voice)
        let app = CallScreenApp(replay: ReplayTrack(events: recording.events, started: recording.header.started), state: state,
                                clock: clock)
        let signals = StopSignals.onMain { app.quit() }
        defer { signals.forEach { $0.cancel() } }
        return await app.run(on: presenter, fps: fps)
    }
}
