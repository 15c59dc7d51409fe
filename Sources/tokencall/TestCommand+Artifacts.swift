import Arguments
import CallScreen
import CallSession
import Foundation
import OutputFiles
import PrintableText
import Recording
import ScenarioRunner

/// `test --artifacts DIR`: per scenario, its events as a recording `tokencall replay` plays (`NAME.jsonl`) and the token
/// timeline as an SVG picture (`NAME.svg`), so a failed run in CI shows what happened when.
extension TestCommand {
    static let artifacts: OptionKey<String?> = .text("artifacts", "DIR", help: "keep each scenario's events (NAME.jsonl, for tokencall replay) "
                                                     + "and its token timeline (NAME.svg) in DIR (made if missing; files there are never written over)")

    /// The size of the timeline picture, in cells.
    static let pictureSize = (width: 120, height: 36)

    /// Where one scenario's artifacts go, opened before it runs.
    struct Artifacts {
        let events: OutputFile
        let picture: OutputFile
        var recorder: Recorder?
        var header: RecordingHeader?
    }

    /// Makes DIR when it is missing; a usage error when it is something else.
    static func artifactsFolder(_ args: Invocation) throws(UsageError) -> String? {
        guard let path = args[artifacts] else { return nil }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw args.error("--artifacts \(path.escapedForPrinting) is not a folder") }
            return path
        }
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
            throw args.error("--artifacts \(path.escapedForPrinting) cannot be made: \(error.localizedDescription)")
        }
        return path
    }

    /// The two files of `scenario` in `folder`; nil (said on stderr) when either cannot be created.
    static func artifacts(in folder: String, for scenario: String) -> Artifacts? {
        let base = folder + "/" + scenario
        do throws(OutputFile.Failure) {
            let events = try OutputFile(path: base + ".jsonl", overwrite: false)
            do throws(OutputFile.Failure) {
                return Artifacts(events: events, picture: try OutputFile(path: base + ".svg", overwrite: false))
            } catch {
                events.discard()
                throw error
            }
        } catch {
            Console.error("tokencall test: --artifacts: \(error)")
            return nil
        }
    }

    /// Has `run` record its session into `artifacts` from its start.
    @MainActor
    static func record(_ run: ScenarioRun, into artifacts: Artifacts, options: [String: String]) -> () -> Artifacts {
        var artifacts = artifacts
        run.starting = { session in
            let header = RecordingHeader(options: options, of: session)
            let recorder = Recorder(file: artifacts.events, header: header)
            session.observe(recorder.record)
            artifacts.recorder = recorder
            artifacts.header = header
        }
        return { artifacts }
    }

    /// Closes the recording and draws the timeline of `outcome`'s events; false (said on stderr) when a file could not be
    /// written.
    @MainActor
    static func finish(_ artifacts: Artifacts, _ outcome: ScenarioRun.Outcome) -> Bool {
        artifacts.recorder?.close()
        if let failure = artifacts.recorder?.failure {
            Console.error("tokencall test: --artifacts: \(failure)")
            return false
        }
        guard let header = artifacts.header else {
            // No join, so no call: nothing to draw or replay.
            artifacts.events.discard()
            artifacts.picture.discard()
            return true
        }
        let call = header.call
        var state = ScreenState(call: call, mode: .replay(ended: true))
        for event in outcome.events {
            _ = state.update(.event(event, unixTime: header.started + event.time.secondsValue))
        }
        _ = state.update(.tick(ScreenTime(unixTime: header.started + outcome.callTime.secondsValue, sessionTime: outcome.callTime)))
        _ = state.update(.resize(width: pictureSize.width, height: pictureSize.height))
        _ = state.update(.key(.character("t")))
        let grid = ScreenRenderer.render(state, width: pictureSize.width, height: pictureSize.height,
                                         options: RenderOptions(colors: 256, unicode: true), video: { _ in nil }, at: outcome.callTime)
        do throws(OutputFile.Failure) {
            try artifacts.picture.write(Array(grid.svg().utf8))
            artifacts.picture.close()
            return true
        } catch {
            Console.error("tokencall test: --artifacts: \(error)")
            return false
        }
    }
}
