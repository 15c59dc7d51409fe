import CallSession
import ChannelEngine
import Timers

/// A recording's events on their way into a `ScreenState`: each taken once the replay's position reaches its time, at
/// the unix time it happened (the recording's start plus its time), as the live screen took it.
public struct ReplayTrack: Sendable {
    public let events: [SessionEvent]
    /// Unix time when the recorded call started.
    public let started: Double
    private var next = 0
    /// Since when each remote user's video has been frozen, and the network down, by the recording.
    private var frozenSince: [UInt: Duration] = [:]
    private var networkDownSince: Duration?

    public init(events: [SessionEvent], started: Double) {
        self.events = events
        self.started = started
    }

    /// The time of the next event to apply; nil once every event has been.
    public var nextTime: Duration? { next < events.count ? events[next].time : nil }

    /// The time of the last event: where the replay ends.
    public var end: Duration { events.last?.time ?? .zero }

    /// Unix time at `position` into the recording.
    public func unixTime(at position: Duration) -> Double {
        started + position.secondsValue
    }

    /// Every event due by `position` that is not taken yet, as the messages the live screen had for them.
    public mutating func take(upTo position: Duration) -> [ScreenMessage] {
        var messages: [ScreenMessage] = []
        while let time = nextTime, time <= position {
            messages.append(.event(events[next], unixTime: unixTime(at: time)))
            follow(events[next])
            next += 1
        }
        return messages
    }

    /// The video the live screen drew for the users `state` shows, drawn again: the simulator's video is a function of
    /// the uid and the time, so only when it froze comes from the recording (`remoteVideoStateChanged`, the network
    /// notice). Times are the recording's: a replay draws its video at its position.
    public func video(for state: ScreenState) -> [UInt: VideoPicture] {
        var sources: [UInt: VideoPicture] = [:]
        if state.call.role == .broadcaster, state.connection == .connected || state.connection == .reconnecting {
            sources[state.call.uid] = .synthetic(VideoFrameSource(uid: state.call.uid))
        }
        for remote in state.remotes where remote.leftAt == nil {
            let frozen = [frozenSince[remote.uid], networkDownSince].compactMap { $0 }.min()
            sources[remote.uid] = .synthetic(VideoFrameSource(uid: remote.uid, frozenAt: frozen))
        }
        return sources
    }

    private mutating func follow(_ event: SessionEvent) {
        switch event.kind {
        case .engine(.remoteVideoStateChanged(let uid, .frozen, _, _)): frozenSince[uid] = frozenSince[uid] ?? event.time
        case .engine(.remoteVideoStateChanged(let uid, _, _, _)), .engine(.didOfflineOfUid(let uid, _)): frozenSince[uid] = nil
        case .engine(.simulatorNotice(.network(let down))): networkDownSince = down ? networkDownSince ?? event.time : nil
        default: break
        }
    }
}
