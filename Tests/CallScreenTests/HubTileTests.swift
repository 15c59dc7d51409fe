import CallSession
import ChannelEngine
import Testing
@testable import CallScreen

/// A call on a hub: uid 9 is a person there, 22222 a simulated user beside them.
@MainActor
@Suite struct HubTileTests {
    static let red = Pixel(red: 230, green: 20, blue: 20), blue = Pixel(red: 20, green: 20, blue: 230)

    /// A received frame: the left half red, the right half blue.
    static let received: VideoFrame = {
        var frame = VideoFrame(width: 32, height: 18)
        for y in 0..<18 { for x in 0..<32 { frame.pixels[y * 32 + x] = x < 16 ? red : blue } }
        return frame
    }()

    func state(hub: Bool = true) -> ScreenState {
        var state = ScreenState(call: CallSettings(channel: "standup", uid: 0, role: .broadcaster, tokenServer: "http://127.0.0.1:8082/rtc (--token-url)",
                                renewMethod: .renew, autoRenew: true), hub: hub ? .init(address: "127.0.0.1:8082") : nil)
        let events: [AgoraRtcEvent] = [
            .simulatorNotice(.hubConnected),
            .connectionStateChanged(.connecting, reason: .reasonConnecting),
            .connectionStateChanged(.connected, reason: .reasonJoinSuccess),
            .didJoinChannel(channel: "standup", uid: 42, elapsed: 30),
            .didJoinedOfUid(9, elapsed: 30),
            .didJoinedOfUid(22_222, elapsed: 600),
        ]
        for event in events { state.take(SessionEvent(time: .seconds(1), kind: .engine(event))) }
        return state
    }

    func picture(_ uid: UInt) -> VideoPicture? {
        uid == 9 ? .received(Self.received, frozen: false) : .synthetic(VideoFrameSource(uid: uid))
    }

    func render(_ state: ScreenState, colors: Int = 0) -> CellGrid {
        ScreenRenderer.render(state, width: 120, height: 40, options: RenderOptions(colors: colors, unicode: colors > 0),
                              video: picture, at: .seconds(5))
    }

    @Test func aHubUsersTileShowsTheFrameTheySentAndSimulatedUsersAreMarked() throws {
        let grid = render(state())
        try assertSnapshot(text: grid.text + "\n", "hub-120x40.txt")
        #expect(grid.text.contains(" uid 22222 | sim "))
        #expect(grid.text.contains(" uid 9  live "), "a person on the hub is not marked")
        #expect(!grid.text.contains(" you | uid 42 | sim"))
        #expect(grid.lines[1].contains("hub 127.0.0.1:8082 connected"))
    }

    @Test func theReceivedFrameIsScaledOverTheWholeTileInItsColours() throws {
        let grid = render(state(), colors: 256)
        let label = try #require(grid.lines.firstIndex { $0.contains(" uid 9 ") })
        let left = try #require(grid.lines[label].range(of: " uid 9 ")).lowerBound.utf16Offset(in: grid.lines[label])
        let top = label + 1
        // The tile runs from the label's column to the next tile's: sample its left and right ends below the label.
        let right = try #require((left + 1..<grid.width).first { grid[$0, top].character != "▀" }) - 1
        #expect(right - left > 10)
        let red = ScreenRenderer.color(Self.red, 256), blue = ScreenRenderer.color(Self.blue, 256)
        for row in top..<(top + 5) {
            #expect(grid[left, row].style.foreground == red && grid[left, row].style.background == red)
            #expect(grid[right, row].style.foreground == blue && grid[right, row].style.background == blue)
        }
    }

    @Test func theStatusLineFollowsTheHubsLinkAndNothingIsMarkedWithoutAHub() {
        var lost = state()
        lost.take(SessionEvent(time: .seconds(2), kind: .engine(.simulatorNotice(.hubLost(reason: "connection refused")))))
        #expect(render(lost).lines[1].contains("hub 127.0.0.1:8082 lost"))
        #expect(lost.log.entries.last.map { $0.name == "hubLost" && $0.detail == #"reason="connection refused""# } == true,
                "\(lost.log.entries)")
        let alone = render(state(hub: false)).text
        #expect(!alone.contains("sim "))
        #expect(!alone.contains("hub 127"))
    }
}
