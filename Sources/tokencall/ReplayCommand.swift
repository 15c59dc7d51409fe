import Arguments
import CallScreen
import CallSession
import Recording
import Timers

/// `tokencall replay FILE`: a recording of `join --record` on the call screen, or its events printed again.
enum ReplayCommand {
    static let speed: OptionKey<Int> = .integer("speed", help: "play N times as fast (< and > change it, space pauses)",
                                                in: ClockPhase.speeds, default: 1)
    static let json: OptionKey<Bool> = .flag("json", help: "print the recorded events as join --json printed them; implies --headless")
    static let headless: OptionKey<Bool> = .flag("headless", help: "print the recorded events as join --headless printed them")

    static let command = Command(
        "replay", summary: "Play a recording of join --record back on the call screen, or print its events.",
        options: [speed.option, json.option, headless.option, ScreenOptions.fps.option, ScreenOptions.noColor.option,
                  SDKOptions.recordedSDK.option, SDKOptions.version.option],
        positionals: [Positional("FILE", help: "a recording written by join --record")],
        epilogue: """
        Printing is at once, whatever --speed. Exit status: 0; 1 when the file cannot be read or is not a recording, or when
        a printed call ended failed, as join's did.
        """,
        run: run)

    @MainActor
    static func run(_ args: Invocation) async throws(UsageError) -> Int32 {
        let speed = args[Self.speed]
        let fps = args[ScreenOptions.fps]
        let headless = args[Self.headless] || args[json]
        let recording: Recording
        do {
            recording = try Recording.read(path: args.positionals[0])
        } catch {
            Console.error("tokencall replay: \(error)")
            return ExitCode.failure
        }
        let voice = SDKOptions.voice(args, else: recording.header.call.voice)
        guard !headless, CallScreenTerminal.available(for: "tokencall replay") else {
            var failed = false
            for event in recording.events {
                JoinCommand.printHeadless(event, json: args[json], in: voice)
                if case .sessionEnded(let wasFailed) = event.kind { failed = wasFailed }
            }
            return failed ? ExitCode.failure : ExitCode.ok
        }
        let presenter = try CallScreenTerminal.presenter(args)
        var call = recording.header.call
        call.voice = voice
        let clock = ScaledClock(speed: speed, unixTime: recording.header.started)
        let state = ScreenState(call: call, mode: .replay(ended: false), clock: clock.phase)
        let app = CallScreenApp(replay: ReplayTrack(events: recording.events, started: recording.header.started), state: state,
                                clock: clock)
        let signals = StopSignals.onMain { app.quit() }
        defer { signals.forEach { $0.cancel() } }
        return await app.run(on: presenter, fps: fps)
    }
}
