import Arguments
import CallSession
import Foundation
import Recording

extension JoinCommand {
    static let recordOption: Option = .value("record", "FILE", help: "write the call's events to FILE (JSON lines) for tokencall replay")

    /// `--record FILE`: the file created with its header line and fed every event of `session`; nil without the option.
    @MainActor
    static func recorder(_ args: Invocation, for session: CallSession) throws(RecordingError) -> Recorder? {
        guard let path = args.string("record") else { return nil }
        var options = args.given
        options["record"] = nil
        options["overwrite"] = nil
        options["token-url"] = options["token-url"].map(withoutCredentials)
        let recorder = try Recorder(path: path, header: RecordingHeader(options: options, of: session), replace: args.has("overwrite"))
        session.onEvent = recorder.record
        return recorder
    }

    /// The call's exit status, or a failure when the recording stopped early (said on stderr once the screen is gone).
    static func finish(_ recorder: Recorder?, status: Int32) -> Int32 {
        guard let failure = recorder?.failure else { return status }
        Console.error("tokencall join: \(failure)")
        return ExitCode.failure
    }

    /// A token server's URL without what may be a credential: the user and password, and the query.
    private static func withoutCredentials(_ text: String) -> String {
        guard var parts = URLComponents(string: text) else { return "" }
        parts.user = nil
        parts.password = nil
        parts.query = nil
        return parts.string ?? ""
    }
}
