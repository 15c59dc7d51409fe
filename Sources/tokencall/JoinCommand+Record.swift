import Arguments
import CallSession
import OutputFiles
import Recording

extension JoinCommand {
    /// `--record FILE`: a recorder writing into `file`, with the header of `session`, fed every event of it (its first observer).
    @MainActor
    static func recorder(_ args: Invocation, into file: OutputFile, for session: CallSession) -> Recorder {
        let options = args.kept(leavingOut: [OutputOptions.record.option, OutputOptions.overwrite.option])
        let recorder = Recorder(file: file, header: RecordingHeader(options: options, of: session))
        session.observe(recorder.record)
        return recorder
    }

    /// The call's exit status, or a failure when the recording stopped early (said on stderr once the screen is gone).
    static func finish(_ recorder: Recorder?, status: Int32) -> Int32 {
        recorder?.close()
        guard let failure = recorder?.failure else { return status }
        Console.error("tokencall join: \(failure)")
        return ExitCode.failure
    }
}
