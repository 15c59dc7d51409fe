import Arguments
import CallScreen
import CallSession
import Foundation
import OutputFiles
import PrintableText
import Recording
import ScenarioRunner
import Scenarios

/// `test --artifacts DIR`: per scenario, its events as a recording `tokencall replay` plays (`NAME.jsonl`) and the token
/// timeline as an SVG picture (`NAME.svg`), so a failed run in CI shows what happened when; the second person's as
/// `NAME.B.jsonl` and `NAME.B.svg`.
extension TestCommand {
    static let artifacts: OptionKey<String?> = .text("artifacts", "DIR", help: "keep each scenario's events (NAME.jsonl, for tokencall replay) "
                                                     + "and its token timeline (NAME.svg) in DIR (made if missing; files there are never written over)")

    /// The size of the timeline picture, in cells.
    static let pictureSize = (width: 120, height: 36)

    /// Where one person's artifacts go, opened before the scenario runs, and what their call did.
    @MainActor
    final class Artifacts {
        let events: OutputFile
        let picture: OutputFile
        var recorder: Recorder?
        var header: RecordingHeader?
        /// The call's events in its own time, for the picture.
        var seen: [SessionEvent] = []
        var session: CallSession?

        init(events: OutputFile, picture: OutputFile) {
            self.events = events
            self.picture = picture
        }
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

    /// The two files of each person of `scenario` in `folder`; nil (said on stderr, nothing left behind) when one
    /// cannot be created.
    @MainActor
    static func artifacts(in folder: String, for scenario: Scenario) -> [ScenarioParticipant: Artifacts]? {
        var made: [ScenarioParticipant: Artifacts] = [:]
        for who in scenario.hasSecondParticipant ? [ScenarioParticipant.a, .b] : [.a] {
            guard let files = artifacts(in: folder, named: scenario.name + (who == .a ? "" : ".\(who.rawValue)")) else {
                discard(made)
                return nil
            }
            made[who] = files
        }
        return made
    }

    /// Removes what `artifacts` made, for a run that did not happen.
    @MainActor
    static func discard(_ artifacts: [ScenarioParticipant: Artifacts]?) {
        for files in (artifacts ?? [:]).values {
            files.events.discard()
            files.picture.discard()
        }
    }

    @MainActor
    private static func artifacts(in folder: String, named name: String) -> Artifacts? {
        let base = folder + "/" + name
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

    /// Has `run` record each person's session into their `artifacts` from its start.
    @MainActor
    static func record(_ run: ScenarioRun, into artifacts: [ScenarioParticipant: Artifacts], options: [String: String]) {
        run.starting = { who, session in
            guard let files = artifacts[who], files.recorder == nil else { return }
            let header = RecordingHeader(options: options, of: session)
            let recorder = Recorder(file: files.events, header: header)
            session.observe(recorder.record)
            session.observe { files.seen.append($0) }
            (files.recorder, files.header, files.session) = (recorder, header, session)
        }
    }

    /// Closes each person's recording and draws the timeline of their events; false (said on stderr) when a file could
    /// not be written.
    @MainActor
    static func finish(_ artifacts: [ScenarioParticipant: Artifacts]) -> Bool {
        artifacts.sorted { $0.key.rawValue < $1.key.rawValue }.allSatisfy { finish($0.value) }
    }

    @MainActor
    private static func finish(_ artifacts: Artifacts) -> Bool {
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
        let callTime = artifacts.session?.now ?? .zero
        for event in artifacts.seen {
            _ = state.update(.event(event, unixTime: header.started + event.time.secondsValue))
        }
        _ = state.update(.tick(ScreenTime(unixTime: header.started + callTime.secondsValue, sessionTime: callTime)))
        _ = state.update(.resize(width: pictureSize.width, height: pictureSize.height))
        _ = state.update(.key(.character("t")))
        let grid = ScreenRenderer.render(state, width: pictureSize.width, height: pictureSize.height,
                                         options: RenderOptions(colors: 256, unicode: true), video: { _ in nil }, at: callTime)
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
