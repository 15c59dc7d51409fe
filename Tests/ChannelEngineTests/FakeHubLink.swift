import HubProtocol
import Synchronization

/// A hub link that records what the engine sends and lets a test play the hub: `inject` hands the engine an event
/// as the link's thread would.
final class FakeHubLink: HubLink {
    private struct State {
        var events: (@Sendable (HubLinkEvent) -> Void)?
        var requests: [HubRequest] = []
        var frames: [HubVideoFrame] = []
        var silences: [Bool] = []
        var closed = false
    }

    private let state = Mutex(State())

    var requests: [HubRequest] { state.withLock { $0.requests } }
    var frames: [HubVideoFrame] { state.withLock { $0.frames } }
    var silences: [Bool] { state.withLock { $0.silences } }
    var isClosed: Bool { state.withLock { $0.closed } }
    /// The joins sent, in order.
    var joins: [HubJoin] {
        requests.compactMap { if case .join(let join) = $0 { join } else { nil } }
    }

    func open(events: @escaping @Sendable (HubLinkEvent) -> Void) {
        state.withLock { $0.events = events }
    }

    func send(_ request: HubRequest) { state.withLock { $0.requests.append(request) } }
    func sendVideo(_ frame: HubVideoFrame) { state.withLock { $0.frames.append(frame) } }
    func setSilent(_ silent: Bool) { state.withLock { $0.silences.append(silent) } }
    func close() { state.withLock { $0.closed = true } }

    func inject(_ event: HubLinkEvent) {
        let events = state.withLock { $0.events }
        events?(event)
    }

    func inject(_ notice: HubNotice) { inject(.notice(notice)) }

    func clear() {
        state.withLock {
            $0.requests = []
            $0.frames = []
            $0.silences = []
        }
    }
}
