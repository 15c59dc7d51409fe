import Arguments
import CallSession
import OutputFiles
import PrintableText
import Recording
import TokenClient

extension JoinCommand {
    /// `--record FILE`: a recorder writing into `file`, with the header of `session`, fed every event of it (its first observer).
    @MainActor
    static func recorder(_ args: Invocation, into file: OutputFile, for session: CallSession) -> Recorder {
        let recorder = Recorder(file: file, header: RecordingHeader(options: recordedOptions(args), of: session))
        session.observe(recorder.record)
        return recorder
    }

    /// The options as the header holds them: not the file's own, and without what may be a credential (the header
    /// leaves out the secret options themselves): URLs without user, password and query, a template without its
    /// query and body.
    private static func recordedOptions(_ args: Invocation) -> [String: String] {
        var options = args.given
        options[OutputOptions.record.option.name] = nil
        options[OutputOptions.overwrite.option.name] = nil
        for name in ["token-url", "hub"] { options[name] = options[name]?.urlWithoutCredentials }
        options["token-request"] = options["token-request"].map { (try? HTTPTokenProvider.Shape(parsing: $0))?.shown ?? "" }
        return options
    }

    /// The call's exit status, or a failure when the recording stopped early (said on stderr once the screen is gone).
    static func finish(_ recorder: Recorder?, status: Int32) -> Int32 {
        recorder?.close()
        guard let failure = recorder?.failure else { return status }
        Console.error("tokencall join: \(failure)")
        return ExitCode.failure
    }
}
