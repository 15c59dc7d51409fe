import CallSession
import ChannelEngine
import Foundation
import OutputFiles
import TestSupport
import Testing
@testable import CallScreen

@Suite struct CastRecorderTests {
    private func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tokencall-\(UUID().uuidString)-\(name)").path
    }

    private func grid(_ width: Int, _ height: Int, at seconds: Int) -> CellGrid {
        let state = ScreenState(call: CallSettings(channel: "test", uid: 0, role: .broadcaster, tokenServer: "http://127.0.0.1:1 (embedded)",
                                renewMethod: .renew, autoRenew: true))
        return ScreenRenderer.render(state, width: width, height: height, options: RenderOptions(colors: 256, unicode: true),
                                     video: { .synthetic(VideoFrameSource(uid: $0)) }, at: .seconds(seconds))
    }

    @Test @MainActor func aRecordingIsAnAsciicastV2OfWhatTheTerminalWasSent() async throws {
        let path = temporaryPath("call.cast")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = ManualClock()
        let recorder = CastRecorder(file: try OutputFile(path: path, overwrite: false), term: "xterm-256color",
                                    unixTime: clock.unixTime + 0.7, elapsed: { clock.now.offset })
        var output = TerminalOutput(codes: .ansi)
        var sent: [[UInt8]] = []
        var previous: CellGrid?
        for (seconds, size) in [(0.0, (80, 24)), (0.25, (80, 24)), (1.5, (100, 30)), (2.0, (100, 30))] {
            await clock.advance(by: .milliseconds(Int64(seconds * 1000)) - clock.now.offset)
            let next = grid(size.0, size.1, at: Int(seconds * 4))
            sent.append(output.bytes(from: previous, to: next))
            recorder.record(sent.last!, width: size.0, height: size.1)
            previous = next
        }
        #expect(recorder.finish() == nil)

        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { Data($0.utf8) }
        let header = try #require(try JSONSerialization.jsonObject(with: lines[0]) as? [String: Any])
        #expect(header["version"] as? Int == 2 && header["width"] as? Int == 80 && header["height"] as? Int == 24)
        #expect(header["timestamp"] as? Int == 1_800_000_000)
        #expect((header["env"] as? [String: String])?["TERM"] == "xterm-256color")
        let events = try lines.dropFirst().map { try #require(try JSONSerialization.jsonObject(with: $0) as? [Any]) }
        #expect(events.map { $0[1] as? String } == ["o", "o", "r", "o", "o"])
        #expect(events.map { $0[0] as? Double } == [0, 0.25, 1.5, 1.5, 2])
        #expect(events[2][2] as? String == "100x30")
        let written = events.filter { $0[1] as? String == "o" }.map { Array(($0[2] as? String ?? "").utf8) }
        #expect(written == sent)
        // Played back, the first frame draws the whole screen.
        var terminal = MiniTerminal(width: 80, height: 24)
        terminal.feed(written[0])
        #expect(terminal.screen.text == grid(80, 24, at: 0).text)
        #expect(terminal.screen.text.contains("tokencall │ iOS SDK │ channel test"))
    }

    @Test func aFullDiskEndsTheRecordingButNotTheCaller() throws {
        let recorder = CastRecorder(file: try OutputFile(path: "/dev/full", overwrite: true), term: nil, unixTime: 0, elapsed: { .zero })
        recorder.record(Array("frame".utf8), width: 80, height: 24)
        recorder.record(Array("next".utf8), width: 80, height: 24)
        #expect(recorder.finish() == .cannotWrite(path: "/dev/full", reason: "No space left on device"))
    }

    @Test func timesAreSecondsWithMicroseconds() {
        #expect(CastRecorder.seconds(.zero) == "0.000000")
        #expect(CastRecorder.seconds(.milliseconds(12_000) + .microseconds(250)) == "12.000250")
        #expect(CastRecorder.seconds(.seconds(86_400 * 2)) == "172800.000000")
    }
}
