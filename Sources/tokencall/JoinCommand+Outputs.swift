import Arguments
import CallScreen
import CallSession
import Foundation
import OutputFiles

/// What `join` writes besides the call: a picture of the screen instead of the screen (`--screenshot`), or a
/// recording of the screen as it runs (`--cast`). Docs/usage.md ("Recordings and pictures").
extension JoinCommand {
    static let outputOptions = [OutputOptions.cast.option, OutputOptions.screenshot.option, OutputOptions.size.option,
                                OutputOptions.overwrite.option]

    /// What the options ask to be written.
    enum Output {
        case none
        case cast(path: String)
        case picture(path: String, width: Int, height: Int)

        var path: String? {
            switch self {
            case .none: nil
            case .cast(let path), .picture(let path, _, _): path
            }
        }
    }

    static func output(_ args: Invocation) throws(UsageError) -> Output {
        let headless = args[Self.headless] || args[json]
        if args.has(OutputOptions.size), !args.has(OutputOptions.screenshot) {
            throw args.error("--size sets the --screenshot picture; the call screen takes the terminal's size")
        }
        if args[OutputOptions.overwrite], !args.has(OutputOptions.cast), !args.has(OutputOptions.screenshot), !args.has(OutputOptions.record) {
            throw args.error("--overwrite applies to the file of --record, --cast or --screenshot; give one of them")
        }
        for key in [OutputOptions.cast, OutputOptions.screenshot, OutputOptions.record] where args[key]?.isEmpty == true {
            throw args.error("--\(key.option.name) needs a file name; it is empty")
        }
        if let path = args[OutputOptions.screenshot] {
            if args.has(OutputOptions.cast) { throw args.error("--screenshot draws the screen without a terminal, --cast records the terminal: give one") }
            if headless { throw args.error("--screenshot prints no events; leave out --headless and --json") }
            guard args.has(duration) else {
                throw args.error("--screenshot needs --duration SECONDS: the picture shows the call when they are over")
            }
            let (width, height) = try pictureSize(args)
            return .picture(path: path, width: width, height: height)
        }
        if let path = args[OutputOptions.cast] {
            if headless { throw args.error("--cast records the call screen; leave out --headless and --json") }
            return .cast(path: path)
        }
        return .none
    }

    /// `--size`: columns and rows (`120x36`, or `120×36` as the picture's line says), from the screen's minimum to 400×200.
    private static func pictureSize(_ args: Invocation) throws(UsageError) -> (width: Int, height: Int) {
        let text = args[OutputOptions.size]
        let parts = text.lowercased().split(omittingEmptySubsequences: false) { $0 == "x" || $0 == "×" }
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              (ScreenRenderer.minimumWidth...400).contains(width), (ScreenRenderer.minimumHeight...200).contains(height) else {
            throw args.error("--size must be COLSxROWS from \(ScreenRenderer.minimumWidth)x\(ScreenRenderer.minimumHeight) "
                             + "to 400x200, such as 120x36, not \"\(text)\"")
        }
        return (width, height)
    }

    /// Creates the file of `--cast`, `--screenshot` or `--record`, or says on stderr why it cannot.
    static func create(_ path: String, _ args: Invocation) -> OutputFile? {
        do throws(OutputFile.Failure) {
            return try OutputFile(path: path, overwrite: args[OutputOptions.overwrite])
        } catch {
            let hint = if case .exists = error { "; give --overwrite to write over it, or another name" } else { "" }
            Console.error("tokencall join: \(error)\(hint)")
            return nil
        }
    }

    /// Records the screen's frames into `file`, with times since now.
    static func cast(into file: OutputFile, unixTime: Double) -> CastRecorder {
        let start = ContinuousClock.now
        return CastRecorder(file: file, term: ProcessInfo.processInfo.environment["TERM"], unixTime: unixTime,
                            elapsed: { start.duration(to: .now) })
    }

    /// Runs the call without a screen and, when `duration` is over (or at SIGINT, SIGTERM, SIGHUP), writes a picture of
    /// the screen it would have shown into `file`.
    @MainActor
    static func runPicture(_ session: CallSession, into file: OutputFile, width: Int, height: Int, options: RenderOptions,
                           duration: Duration) async -> Int32 {
        let screen = CallScreenApp(session: session)
        var grid: CellGrid?
        let finish = { @MainActor in
            guard grid == nil else { return }
            grid = screen.picture(width: width, height: height, options: options)
            session.stop()
        }
        screen.start()
        Console.error("tokencall join: seed \(session.configuration.seed)")
        let signals = StopSignals.onMain(finish)
        let deadline = end(session, after: duration, finish)
        await session.untilEnded()
        signals.forEach { $0.cancel() }
        deadline?.cancel()
        let picture = grid ?? screen.picture(width: width, height: height, options: options)
        do throws(OutputFile.Failure) {
            try file.write(Array(picture.svg().utf8))
        } catch {
            Console.error("tokencall join: \(error); no picture was written")
            return ExitCode.failure
        }
        file.close()
        let (cellWidth, cellHeight) = CellGrid.pictureCell
        Console.error("tokencall join: wrote \(file.path): \(width)×\(height) cells, \(width * cellWidth)×\(height * cellHeight) px")
        return ExitCode.ok
    }
}
