import OutputFiles
import PrintableText
import Synchronization
import Timers

/// Records what the call screen sends the terminal as an asciicast v2 file, asciinema's format: a header line with
/// the size, the start time and TERM, then one `[seconds, "o", text]` line per write and a
/// `[seconds, "r", "COLSxROWS"]` line before the first write at a new size. Times come from `elapsed`, so a test's
/// manual clock makes them exact. A failed write ends the recording, never the call; `finish` says why.
public final class CastRecorder: Sendable {
    private struct State {
        var file: OutputFile?
        var size: (width: Int, height: Int)?
        var failure: OutputFile.Failure?
    }

    private let state: Mutex<State>
    private let term: String?
    private let unixTime: Int64
    private let elapsed: @Sendable () -> Duration

    /// Records into `file`; `unixTime` is when the recording starts, `elapsed` the time since then.
    public init(file: OutputFile, term: String?, unixTime: Double, elapsed: @escaping @Sendable () -> Duration) {
        state = Mutex(State(file: file))
        self.term = term
        self.unixTime = Int64(unixTime.rounded(.down))
        self.elapsed = elapsed
    }

    /// Records one write of `bytes` to a terminal of `width`×`height` (the first one writes the header).
    public func record(_ bytes: [UInt8], width: Int, height: Int) {
        guard !bytes.isEmpty else { return }
        let time = Self.seconds(elapsed())
        state.withLock { state in
            guard let file = state.file else { return }
            var lines = ""
            if let size = state.size {
                if size != (width, height) { lines += "[\(time), \"r\", \"\(width)x\(height)\"]\n" }
            } else {
                let env = term.map { #", "env": {"TERM": \#($0.jsonQuoted)}"# } ?? ""
                lines += #"{"version": 2, "width": \#(width), "height": \#(height), "timestamp": \#(unixTime)\#(env)}"# + "\n"
            }
            state.size = (width, height)
            lines += "[\(time), \"o\", \(String(decoding: bytes, as: UTF8.self).jsonQuoted)]\n"
            do throws(OutputFile.Failure) {
                try file.write(Array(lines.utf8))
            } catch {
                state.failure = error
                state.file = nil
            }
        }
    }

    /// Ends the recording and closes the file; returns the failure that stopped it early, if one did.
    public func finish() -> OutputFile.Failure? {
        state.withLock { state in
            state.file?.close()
            state.file = nil
            return state.failure
        }
    }

    /// Seconds with microseconds, as asciinema writes them: "12.000250".
    static func seconds(_ duration: Duration) -> String {
        let whole = max(duration, .zero).wholeMicroseconds
        let micros = String(whole % 1_000_000)
        return "\(whole / 1_000_000)." + String(repeating: "0", count: 6 - micros.count) + micros
    }
}
