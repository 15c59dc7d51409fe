import CallScreen
import Foundation
import TestSupport
import Testing
import Timers
@testable import CallSession

/// The screen `join --screenshot` pictures: the call screen's program following a session without a terminal, drawn at
/// the moment asked.
@MainActor
@Suite struct OffscreenCallScreenTests {
    @Test func itShowsTheCallAsTheScreenWouldAtThatMoment() async throws {
        let h = SessionHarness(clock: ManualClock(unixTime: 1_800_000_000)) { $0.remoteUsers = 2 }
        let screen = CallScreenApp(session: h.session)
        screen.start()
        await h.run(for: 12)
        let options = RenderOptions(colors: 256, unicode: true)
        let grid = screen.picture(width: 120, height: 36, options: options)
        let text = grid.text
        #expect(text.contains("● connected joinSuccess"))
        #expect(text.contains("t 12 s"))
        #expect(text.contains("tokenPrivilegeWillExpire"))
        #expect(text.contains("tokenRenewed"))
        #expect(text.contains("fetches 2"))
        // Three tiles of video: half blocks in the palette's cube.
        #expect(grid.cells.filter { $0.character == "▀" }.count > 1000)
        // The same session and moment draw the same picture.
        #expect(screen.picture(width: 120, height: 36, options: options) == grid)
        await h.run(for: 1)
        #expect(screen.picture(width: 120, height: 36, options: options).text.contains("t 13 s"))
        await h.stop()
    }

    /// `l`, `c`, `j`, `l`, `c`, `j`: after each, the header and the local tile show the role the engine holds, and the
    /// engine calls back only for the change to audience out of the channel, as Agora documents.
    @Test func theScreenShowsTheRoleTheEngineHoldsThroughLeavesAndJoins() async throws {
        let h = SessionHarness(clock: ManualClock(unixTime: 1_800_000_000)) { $0.remoteUsers = 0 }
        let screen = CallScreenApp(session: h.session)
        screen.start()
        await h.run(for: 1)
        let steps: [SessionCommand] = [.leave, .switchRole, .join, .leave, .switchRole, .join]
        for (step, command) in steps.enumerated() {
            h.session.perform(command)
            await h.run(for: 1)
            let engine = try #require(h.session.engine)
            let text = screen.picture(width: 120, height: 36, options: RenderOptions(colors: 0, unicode: true)).text
            #expect(text.utf8.starts(with: " tokencall │ iOS SDK │ channel test │ uid \(engine.connection?.localUid ?? 0) │ \(engine.clientRole.name) │".utf8),
                    "after step \(step + 1), \(command): the engine holds \(engine.clientRole.name)\n\(text)")
        }
        #expect(h.session.engine?.clientRole == .broadcaster)
        let text = screen.picture(width: 120, height: 36, options: RenderOptions(colors: 0, unicode: true)).text
        #expect(!text.contains("not publishing"), "joined as a broadcaster, it publishes")
        #expect(h.count("didClientRoleChanged") == 1)
        #expect(h.events.filter { $0.kind == .roleChanged(.broadcaster) || $0.kind == .roleChanged(.audience) }.map(\.kind)
                    == [.roleChanged(.audience), .roleChanged(.broadcaster)])
        await h.stop()
    }

    @Test func theFetchCountIsTheRequestsTheServerSaw() async throws {
        let h = SessionHarness(clock: ManualClock(unixTime: 1_800_000_000))
        let screen = CallScreenApp(session: h.session)
        screen.start()
        await h.run(for: 2)
        for _ in 0..<2 {
            h.session.renewNow()
            await h.run(for: 1)
        }
        let text = screen.picture(width: 200, height: 60, options: RenderOptions(colors: 0, unicode: false)).text
        #expect(h.local?.fetchCount == 3)
        #expect(text.contains("fetches 3"))
        #expect(text.contains("tokenRenewed renew, fetched for manual"))
        await h.stop()
    }

    @Test func afterExpiringByHandTheRenewalIsLoggedBelowTheFailure() async throws {
        let h = SessionHarness(clock: ManualClock(unixTime: 1_800_000_000))
        let screen = CallScreenApp(session: h.session)
        screen.start()
        await h.run(for: 2)
        h.session.expireNow()
        await h.run(for: 2)
        #expect(h.session.engine?.connectionState == .connected)
        let lines = screen.picture(width: 200, height: 60, options: RenderOptions(colors: 0, unicode: false)).lines
        let failed = try #require(lines.firstIndex { $0.contains("connectionStateChanged failed, tokenExpired") })
        let renewed = try #require(lines.lastIndex { $0.contains("tokenRenewed renew, fetched for requestToken") })
        let back = try #require(lines.lastIndex { $0.contains("connectionStateChanged connected") })
        #expect(failed < renewed && back < renewed, "\(lines.joined(separator: "\n"))")
        await h.stop()
    }

    @Test func aFastCallsScreenShowsItsSpeed() {
        let h = SessionHarness { $0.clock = ScaledClock(speed: 3600, base: ManualClock(), unixTime: 0) }
        let grid = CallScreenApp(session: h.session).picture(width: 120, height: 36, options: RenderOptions(colors: 0, unicode: true))
        #expect(grid.lines[0].hasPrefix(" tokencall 3600x │ iOS SDK │ channel test"), "\(grid.lines[0])")
    }
}
