import HubProtocol
import Synchronization

/// A hub link that records what the engine sends and lets a test play the hub: `inject` hands the engine an event
/// as the link's thread would.
public final class FakeHubLink: HubLink {
    private struct State {
        var events: (@Sendable (HubLinkEvent) -> Void)?
        var requests: [HubRequest] = []
        var frames: [HubVideoFrame] = []
        var silences: [Bool] = []
        var drops: [String] = []
        var closed = false
    }

    private let state = Mutex(State())

    public init() {}

    public var requests: [HubRequest] { state.withLock { $0.requests } }
    public var frames: [HubVideoFrame] { state.withLock { $0.frames } }
    public var silences: [Bool] { state.withLock { $0.silences } }
    public var isClosed: Bool { state.withLock { $0.closed } }
    /// The reasons of the engine's `drop`s, in order; the test answers each with `lost` as a real link does.
    public var drops: [String] { state.withLock { $0.drops } }
    /// The joins sent, in order.
    public var joins: [HubJoin] {
        requests.compactMap { if case .join(let join) = $0 { join } else { nil } }
    }

    public func open(events: @escaping @Sendable (HubLinkEvent) -> Void) {
        state.withLock { $0.events = events }
    }

    public func send(_ request: HubRequest) { state.withLock { $0.requests.append(request) } }
    public func sendVideo(_ frame: HubVideoFrame) { state.withLock { $0.frames.append(frame) } }
    public func setSilent(_ silent: Bool) { state.withLock { $0.silences.append(silent) } }
    public func close() { state.withLock { $0.closed = true } }
    public func drop(_ reason: String) { state.withLock { $0.drops.append(reason) } }

    public func inject(_ event: HubLinkEvent) {
        let events = state.withLock { $0.events }
        events?(event)
    }

    public func inject(_ notice: HubNotice) { inject(.notice(notice)) }

    public func clear() {
        state.withLock {
            $0.requests = []
            $0.frames = []
            $0.silences = []
        }
    }
}
