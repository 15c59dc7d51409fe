import AccessToken
import ChannelEngine
import PrintableText
import Timers

/// How a fresh token reaches the engine.
public enum RenewMethod: String, Sendable, CaseIterable {
    /// `renewToken(_:)`, Agora's recommendation.
    case renew
    /// `updateChannel(with:)` with the token in the media options.
    case update
    /// `leaveChannel()` then `joinChannel(byToken:...)`.
    case rejoin

    /// The next method, for a key that cycles through them.
    public var next: RenewMethod {
        let all = Self.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }
}

/// One thing that happened in a call, at a time since the session started.
public struct SessionEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A callback of the engine.
        case engine(AgoraRtcEvent)
        case tokenFetchStarted(reason: String)
        case tokenFetched(latency: Duration, expiresAt: Int64)
        case tokenFetchFailed(error: String, retryIn: Duration?)
        case tokenRenewed(method: RenewMethod)
        /// A pasted token was handed over (at join, or by hand); it admits joins until `expiresAt` (unix).
        case tokenPasted(expiresAt: Int64)
        /// Tokens are pasted by hand and the one in use is running out: `secondsLeft` (0 once it has).
        case tokenNeeded(secondsLeft: Int64)
        /// Auto-renew was switched on or off; printed as the note `auto-renew on` or `auto-renew off`.
        case autoRenewChanged(on: Bool)
        /// Fresh tokens now reach the engine this way; printed as the note `renew method update`.
        case renewMethodChanged(RenewMethod)
        /// The embedded server's tokens now carry this mistake on purpose (nil: they are right again); printed as the
        /// note `misconfigure wrong-uid: ...`.
        case mistakeChanged(TokenMistake?)
        /// Out of a channel, the role the next join takes changed (in one, `didClientRoleChanged` says so); printed as
        /// the note `role audience: set out of a channel, a join takes it`.
        case roleChanged(AgoraClientRole)
        /// Something the session itself says: where the embedded server listens, a key that does not apply.
        case note(String)
        /// Nothing more will happen without a person: a refused credential, a join the network refused.
        case stuck(reason: String)
        case sessionEnded(failed: Bool)
    }

    public let time: Duration
    public let kind: Kind

    public init(time: Duration, kind: Kind) {
        self.time = time
        self.kind = kind
    }

    /// The callback or event name (`connectionStateChanged`, `tokenFetched`, ...).
    public var name: String {
        switch kind {
        case .engine(let event): event.name
        case .tokenFetchStarted: "tokenFetchStarted"
        case .tokenFetched: "tokenFetched"
        case .tokenFetchFailed: "tokenFetchFailed"
        case .tokenRenewed: "tokenRenewed"
        case .tokenPasted: "tokenPasted"
        case .tokenNeeded: "tokenNeeded"
        case .note, .autoRenewChanged, .renewMethodChanged, .mistakeChanged, .roleChanged: "note"
        case .stuck: "stuck"
        case .sessionEnded: "sessionEnded"
        }
    }

    /// A report the engine repeats on a timer (`reportRtcStats`, `reportAudioVolumeIndicationOfSpeakers`): it updates
    /// what a screen shows, and headless output and the event log leave it out.
    public var isPeriodic: Bool {
        switch kind {
        case .engine(.reportRtcStats), .engine(.reportAudioVolumeIndication): true
        default: false
        }
    }

    /// A field value, as text and JSON write it.
    public enum Value: Sendable, Equatable {
        case text(String)
        case number(Int64)
        case seconds(Duration)
        case flag(Bool)
        case none
    }

    /// The event's fields in a fixed order, documented in Docs/events.md.
    public var fields: [(String, Value)] {
        switch kind {
        case .engine(let event): Self.fields(of: event)
        case .tokenFetchStarted(let reason): [("reason", .text(reason))]
        case .tokenFetched(let latency, let expiresAt): [("latency", .seconds(latency)), ("expiresAt", .number(expiresAt))]
        case .tokenFetchFailed(let error, let retryIn): [("error", .text(error)), ("retryIn", retryIn.map(Value.seconds) ?? .none)]
        case .tokenRenewed(let method): [("method", .text(method.rawValue))]
        case .tokenPasted(let expiresAt): [("expiresAt", .number(expiresAt))]
        case .tokenNeeded(let left): [("secondsLeft", .number(left))]
        case .note, .autoRenewChanged, .renewMethodChanged, .mistakeChanged, .roleChanged: [("text", .text(noteText ?? ""))]
        case .stuck(let reason): [("reason", .text(reason))]
        case .sessionEnded(let failed): [("failed", .flag(failed))]
        }
    }

    /// What a note says (the `text` field of every kind named `note`); nil for the other kinds.
    public var noteText: String? {
        switch kind {
        case .note(let text): text
        case .autoRenewChanged(let on): "auto-renew \(on ? "on" : "off")"
        case .renewMethodChanged(let method): "renew method \(method.rawValue)"
        case .mistakeChanged(let mistake?):
            "misconfigure \(mistake.rawValue): the embedded token server hands out \(mistake.summary) from its next token on"
        case .mistakeChanged(nil): "misconfigure none: the embedded token server's tokens are right again"
        case .roleChanged(let role): "role \(role.name): set out of a channel, a join takes it"
        default: nil
        }
    }

    private static func fields(of event: AgoraRtcEvent) -> [(String, Value)] {
        switch event {
        case .didJoinChannel(let channel, let uid, let elapsed):
            [("channel", .text(channel)), ("uid", .number(Int64(uid))), ("elapsed", .number(Int64(elapsed)))]
        case .didRejoinChannel(let channel, let uid, let elapsed):
            [("channel", .text(channel)), ("uid", .number(Int64(uid))), ("elapsed", .number(Int64(elapsed)))]
        case .didLeaveChannel(let channel, let uid, _):
            [("channel", .text(channel)), ("uid", .number(Int64(uid)))]
        case .didLocalUserRegistered(let account, let uid): [("account", .text(account)), ("uid", .number(Int64(uid)))]
        case .connectionStateChanged(let state, let reason): [("state", .text(state.name)), ("reason", .text(reason.name))]
        case .tokenPrivilegeWillExpire: []
        case .requestToken: []
        case .renewTokenResult(_, let code): [("code", .text(code.name))]
        case .didJoinedOfUid(let uid, let elapsed): [("uid", .number(Int64(uid))), ("elapsed", .number(Int64(elapsed)))]
        case .didOfflineOfUid(let uid, let reason): [("uid", .number(Int64(uid))), ("reason", .text(reason.name))]
        case .firstRemoteVideoFrame(let uid, let size, let elapsed):
            [("uid", .number(Int64(uid))), ("width", .number(Int64(size.width))), ("height", .number(Int64(size.height))),
             ("elapsed", .number(Int64(elapsed)))]
        case .didOccurError(let code): [("code", .number(Int64(code.rawValue))), ("name", .text(code.name))]
        case .didClientRoleChanged(let old, let new, let latency):
            [("old", .text(old.name)), ("new", .text(new.name))] + (latency.map { [("latency", .text($0.name))] } ?? [])
        case .didUserInfoUpdated(let uid, let account): [("uid", .number(Int64(uid))), ("account", .text(account))]
        case .reportRtcStats(let stats): [("duration", .number(Int64(stats.duration))), ("users", .number(Int64(stats.userCount)))]
        case .networkQuality(let uid, let tx, let rx): [("uid", .number(Int64(uid))), ("tx", .text(tx.name)), ("rx", .text(rx.name))]
        case .reportAudioVolumeIndication(let speakers, let total):
            [("speakers", .number(Int64(speakers.count))), ("totalVolume", .number(Int64(total)))]
        case .activeSpeaker(let uid): [("uid", .number(Int64(uid)))]
        case .remoteVideoStateChanged(let uid, let state, let reason, let elapsed):
            [("uid", .number(Int64(uid))), ("state", .text(state.name)), ("reason", .text(reason.name)),
             ("elapsed", .number(Int64(elapsed)))]
        case .connectionInterrupted, .connectionLost, .connectionBanned: []
        case .localAudioStateChanged(let state, let reason): [("state", .text(state.name)), ("reason", .text(reason.name))]
        case .localVideoStateChanged(let state, let reason, let source):
            [("state", .text(state.name)), ("reason", .text(reason.name)), ("source", .text(source.name))]
        case .localAudioStats(let stats):
            [("channels", .number(Int64(stats.numChannels))), ("sampleRate", .number(Int64(stats.sentSampleRate)))]
        case .remoteVideoStats(let stats):
            [("uid", .number(Int64(stats.uid))), ("width", .number(Int64(stats.width))), ("height", .number(Int64(stats.height))),
             ("frameRate", .number(Int64(stats.rendererOutputFrameRate)))]
        case .remoteAudioStats(let stats): [("uid", .number(Int64(stats.uid))), ("quality", .number(Int64(stats.quality)))]
        case .networkTypeChanged(let type): [("type", .text(type.name))]
        case .didOccurWarning(let code): [("code", .number(Int64(code.rawValue))), ("name", .text(code.name))]
        case .snapshotTaken(let uid, let path, let width, let height, let code):
            [("uid", .number(Int64(uid))), ("filePath", .text(path)), ("width", .number(Int64(width))),
             ("height", .number(Int64(height))), ("errCode", .number(Int64(code)))]
        case .remoteAudioStateChanged(let uid, let state, let reason, let elapsed):
            [("uid", .number(Int64(uid))), ("state", .text(state.name)), ("reason", .text(reason.name)),
             ("elapsed", .number(Int64(elapsed)))]
        case .localVideoStats(let stats, _):
            [("width", .number(Int64(stats.encodedFrameWidth))), ("height", .number(Int64(stats.encodedFrameHeight))),
             ("frameRate", .number(Int64(stats.sentFrameRate)))]
        case .lastmileQuality(let quality): [("quality", .text(quality.name))]
        case .lastmileProbeTest(let result): [("state", .text(result.state.name)), ("rtt", .number(Int64(result.rtt)))]
        case .didProxyConnected(let channel, let uid, let proxyType, let elapsed):
            [("channel", .text(channel)), ("uid", .number(Int64(uid))), ("proxyType", .text(proxyType.name)),
             ("elapsed", .number(Int64(elapsed)))]
        case .videoRenderingTracingResult(let uid, let event, let info):
            [("uid", .number(Int64(uid))), ("event", .text(event.name)), ("elapsed", .number(Int64(info.elapsedTime)))]
        case .simulatorNotice(let notice):
            switch notice {
            case .signatureNotChecked: [("notice", .text("signatureNotChecked"))]
            case .tokenAccepted(let expiresAt, let short):
                [("notice", .text("tokenAccepted")), ("expiresAt", .number(expiresAt)), ("short", .flag(short))]
            case .localUserOfflineForPeers(let reason): [("notice", .text("localUserOfflineForPeers")), ("reason", .text(reason.name))]
            case .network(let down): [("notice", .text("network")), ("down", .flag(down))]
            case .hubConnected: [("notice", .text("hubConnected"))]
            case .hubLost(let reason): [("notice", .text("hubLost")), ("reason", .text(reason))]
            case .hubError(let message): [("notice", .text("hubError")), ("message", .text(message))]
            case .hubVideoUnreadable(let uid, let problem):
                [("notice", .text("hubVideoUnreadable")), ("uid", .number(Int64(uid))), ("problem", .text(problem))]
            case .hubUsersPastLimit(let limit): [("notice", .text("hubUsersPastLimit")), ("limit", .number(Int64(limit)))]
            case .accepted(let method, let arguments):
                [("notice", .text("accepted")), ("method", .text(method.rawValue)), ("arguments", .text(arguments))]
            case .localMuteForPeers(let audio, let muted):
                [("notice", .text("localMuteForPeers")), ("audio", .flag(audio)), ("muted", .flag(muted))]
            }
        }
    }
}

extension SessionEvent {
    /// `[  12.345s] connectionStateChanged state=connected reason=joinSuccess`
    public var textLine: String { textLine(in: .standard)! }

    /// The fields as text, what `textLine` prints after the name: `state=connected reason=joinSuccess`. A text value
    /// that is empty or holds white space of any kind, a quote, a backslash or what is unsafe to print is written as a
    /// JSON string, its white space but the plain space escaped too (`\u00a0`), so that a value cannot pass for more
    /// fields (Docs/events.md).
    public var detail: String { Self.detail(of: fields) }

    /// `fields` as `detail` writes them.
    public static func detail(of fields: [(String, Value)]) -> String {
        fields.compactMap { key, value in
            switch value {
            case .text(let text):
                let bare = !text.isEmpty && text.unicodeScalars.allSatisfy {
                    !$0.properties.isWhitespace && $0 != "\"" && $0 != "\\" && !$0.isUnsafeToPrint
                }
                guard !bare else { return "\(key)=\(text)" }
                var quoted = ""
                for scalar in text.jsonQuoted.unicodeScalars {
                    if scalar.properties.isWhitespace, scalar != " " { quoted += scalar.jsonEscaped } else { quoted.unicodeScalars.append(scalar) }
                }
                return "\(key)=\(quoted)"
            case .number(let number): return "\(key)=\(number)"
            case .seconds(let duration): return "\(key)=\(Self.decimal(duration))s"
            case .flag(let flag): return "\(key)=\(flag)"
            case .none: return nil
            }
        }.joined(separator: " ")
    }

    /// `{"t": 12.345, "event": "connectionStateChanged", "state": "connected", "reason": "joinSuccess"}`: the
    /// engine's own words, as recordings keep them.
    public var jsonLine: String { Self.jsonLine(time: time, name: name, fields: fields) }

    /// The event as an app on `voice`'s SDK hears it, still in iOS's words; nil for an event that SDK, at that version,
    /// does not fire. Without a renewal's result (native SDKs before 4.6, Electron, Unity) a refused renewal is heard as
    /// the error it was then (109 or 110), a taken one not at all.
    public func heard(in voice: SDKVoice) -> SessionEvent? {
        guard case .engine(let event) = kind, let word = SDKWord(rawValue: event.name) else { return self }
        if case .renewTokenResult(_, let code) = event, !voice.hearsRenewResult {
            guard code != .success else { return nil }
            return SessionEvent(time: time, kind: .engine(.didOccurError(code == .tokenExpired ? .tokenExpired : .invalidToken))).heard(in: voice)
        }
        return voice.name(of: word) == nil ? nil : self
    }

    /// The event as `voice` speaks it (`heard(in:)`): its name in that SDK and its fields with states and reasons in its
    /// spelling; nil for an event that SDK does not fire.
    public func spoken(in voice: SDKVoice) -> (name: String, fields: [(String, Value)])? {
        guard let heard = heard(in: voice) else { return nil }
        guard case .engine(let event) = heard.kind, let word = SDKWord(rawValue: event.name), let spokenName = voice.name(of: word) else {
            return (heard.name, heard.fields)
        }
        guard case .connectionStateChanged(let state, let reason) = event else { return (spokenName, heard.fields) }
        let spelled = voice.profile.spelling(of: state, reason)
        return (spokenName, [("state", .text(spelled.state)), ("reason", spelled.reason.map(Value.text) ?? .none)])
    }

    /// `textLine` in `voice`'s words; nil for an event that SDK does not fire.
    public func textLine(in voice: SDKVoice) -> String? {
        spoken(in: voice).map { "[\(Self.pad(Self.decimal(time), 8))s] \($0.name)" + ($0.fields.isEmpty ? "" : " " + Self.detail(of: $0.fields)) }
    }

    /// `jsonLine` in `voice`'s words, with `ios` last, the event's name in iOS's words whatever the voice, for tools
    /// that read any profile's lines; nil for an event that SDK does not fire.
    public func jsonLine(in voice: SDKVoice) -> String? {
        spoken(in: voice).map { Self.jsonLine(time: time, name: $0.name, fields: $0.fields + [("ios", .text(name))]) }
    }

    private static func jsonLine(time: Duration, name: String, fields: [(String, Value)]) -> String {
        var parts = [#""t": \#(Self.decimal(time))"#, #""event": \#(name.jsonQuoted)"#]
        for (key, value) in fields {
            let json: String = switch value {
            case .text(let text): text.jsonQuoted
            case .number(let number): String(number)
            case .seconds(let duration): Self.decimal(duration)
            case .flag(let flag): String(flag)
            case .none: "null"
            }
            parts.append("\(key.jsonQuoted): \(json)")
        }
        return "{" + parts.joined(separator: ", ") + "}"
    }

    /// Seconds with three decimals: "12.345".
    public static func decimal(_ duration: Duration) -> String {
        let millis = duration.wholeMilliseconds
        let sign = millis < 0 ? "-" : ""
        let magnitude = abs(millis)
        return "\(sign)\(magnitude / 1000)." + pad(String(magnitude % 1000), 3, with: "0")
    }

    private static func pad(_ text: String, _ width: Int, with fill: Character = " ") -> String {
        String(repeating: fill, count: max(0, width - text.count)) + text
    }
}

