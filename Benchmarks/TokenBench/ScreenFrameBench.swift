import CallScreen
import CallSession
import ChannelEngine

/// The call screen of `make bench`'s screen run, as a state: connected, four remote users, a log longer than the
/// screen, built by applying session events as the app does.
func benchScreenState() -> ScreenState {
    var state = ScreenState(call: CallSettings(channel: "test", uid: 0, role: .broadcaster, tokenServer: "http://127.0.0.1:43210 (embedded)",
                            renewMethod: .renew, autoRenew: true))
    let start: Double = 1_800_000_000
    func at(_ seconds: Double, _ kind: SessionEvent.Kind) {
        _ = state.update(.event(SessionEvent(time: .milliseconds(Int64(seconds * 1000)), kind: kind), unixTime: start + seconds))
    }
    at(0, .tokenFetched(latency: .milliseconds(4), expiresAt: Int64(start) + 3600))
    at(0.25, .engine(.connectionStateChanged(.connected, reason: .reasonJoinSuccess)))
    at(0.25, .engine(.didJoinChannel(channel: "test", uid: 5_550_123, elapsed: 250)))
    at(0.25, .engine(.simulatorNotice(.tokenAccepted(expiresAt: Int64(start) + 3600, short: false))))
    for (index, uid) in [11_111, 22_222, 33_333, 44_444].enumerated() {
        at(0.6 + Double(index), .engine(.didJoinedOfUid(UInt(uid), elapsed: 600)))
    }
    for second in 5..<65 { at(Double(second), .engine(.tokenPrivilegeWillExpire(token: "t"))) }
    return state
}

/// One frame of the screen run's pure part, as the app makes it: the chrome drawn again only when the state
/// changed (each second), the five video tiles drawn over a copy of it at 200×50 in 256 colours with half blocks,
/// and the cells that changed since the frame before found, as the presenter finds them before writing.
struct ScreenFrameBench {
    var state = benchScreenState()
    let start = benchScreenState().now
    var time = Duration.seconds(70)
    var chrome: (state: ScreenState, grid: CellGrid)?
    var previous: CellGrid?
    var changed = 0
    let options = RenderOptions(colors: 256, unicode: true)

    mutating func frame() {
        time += .milliseconds(40)
        _ = state.update(.tick(ScreenTime(unixTime: start + Double(time.components.seconds), sessionTime: time)))
        if chrome?.state != state {
            chrome = (state, ScreenRenderer.chrome(state, width: 200, height: 50, options: options))
        }
        var grid = chrome!.grid
        ScreenRenderer.drawMotion(state, into: &grid, options: options, video: { .synthetic(VideoFrameSource(uid: $0)) }, at: time)
        grid.forEachChange(since: previous) { _, _, _ in changed += 1 }
        previous = grid
    }
}
