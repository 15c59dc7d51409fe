/// A published track's state as the hub carries it: the hub carries states only, never audio (`Docs/hub-protocol.md`).
public enum HubTrack: String, Equatable, Sendable, CaseIterable {
    /// Not published.
    case off
    /// Published and sending.
    case on
    /// Published and muted: the track stays, nothing is sent.
    case muted

    /// The names `init(name:)` takes, for errors.
    static let names = allCases.map(\.rawValue).joined(separator: ", ")
}

/// A member's audio and video, as it last told the hub.
public struct HubMedia: Equatable, Sendable {
    public var audio: HubTrack
    public var video: HubTrack

    public init(audio: HubTrack, video: HubTrack) {
        self.audio = audio
        self.video = video
    }

    /// What a client that never tells its states is taken to publish: video (its frames) and no audio, as before
    /// the hub carried states.
    public static let untold = HubMedia(audio: .off, video: .on)
}

extension Fields {
    /// A track state member: off, on or muted.
    func track(_ name: String) throws(HubProtocolError) -> HubTrack {
        let text = try string(name)
        guard let track = HubTrack(rawValue: text) else {
            throw HubProtocolError("\(name) must be one of \(HubTrack.names), not \"\(text.prefix(40))\"")
        }
        return track
    }

    /// `audio` and `video` together, or neither (nil); one without the other is an error.
    func media() throws(HubProtocolError) -> HubMedia? {
        switch (members["audio"], members["video"]) {
        case (nil, nil): nil
        case (.some, .some): HubMedia(audio: try track("audio"), video: try track("video"))
        default: throw HubProtocolError("audio and video go together: each \(HubTrack.names)")
        }
    }
}
