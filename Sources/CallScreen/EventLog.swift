import CallSession
import ChannelEngine
import PrintableText
import Timers

/// The call screen's event log, a line for each thing that happened, written for a person to read at a glance: the
/// stamp is the call's clock, an expiry is a wall-clock time (`expires 18:16:01 (40s)`), one token's fetch (or paste),
/// the engine taking it and the renewal it completes share one line, which moves below what came in between once the
/// renewal is done, and a simulator's notice goes on the line it explains. Headless lines and JSON are the events' own
/// (`SessionEvent.textLine`, `jsonLine`), unchanged. Names, states and reasons are the voice's (`--sdk`).
public struct EventLog: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        /// When it happened (the first event of the line, or the renewal that moved it), on the call's clock.
        public var time: Duration
        public var name: String
        public var detail: String
        public var tone: ScreenState.Tone
    }

    public private(set) var entries: [Entry] = []
    let voice: SDKVoice
    /// The token whose line later events of it go on: from its fetch or paste until the next one.
    private var story: TokenStory?
    static let limit = 200

    /// One token's line: where it came from and how far it got.
    private struct TokenStory: Sendable, Equatable {
        var entry: Int
        /// The fetch's reason; nil for a pasted token.
        var reason: String?
        var latency: Duration?
        var expiresAt: Int64?
        /// Seconds of life it had when it arrived (or was accepted).
        var left: Int64?
        var phase = Phase.fetching
        var accepted = false
        var short = false
        var signatureUnchecked = false

        enum Phase: Sendable, Equatable {
            case fetching, arrived, renewed(RenewMethod)
            case failed(error: String, retryIn: Duration?)
            /// The engine refused it: a line of its own says how.
            case refused
        }
    }

    public init(voice: SDKVoice = .standard) { self.voice = voice }

    /// Takes `event`, which arrived when the call's wall read `unixNow`; `tokenExpiresAt` is the expiry of the token in
    /// use before it.
    mutating func take(_ event: SessionEvent, tokenExpiresAt: Int64?, unixNow: Double) {
        let now = Int64(unixNow.rounded(.down))
        switch event.kind {
        case .engine(.networkQuality), .engine(.activeSpeaker), .engine(.remoteVideoStateChanged):
            // The tiles show these.
            return
        case .tokenFetchStarted(let reason):
            open(TokenStory(entry: entries.count, reason: reason), at: event.time)
        case .tokenFetched(let latency, let expiresAt):
            if story?.phase != .fetching { open(TokenStory(entry: entries.count, reason: nil), at: event.time) }
            change { $0.latency = latency; $0.expiresAt = expiresAt; $0.left = Self.seconds(from: now, to: expiresAt); $0.phase = .arrived }
        case .tokenFetchFailed(let error, let retryIn) where story?.phase == .fetching:
            change { $0.phase = .failed(error: error, retryIn: retryIn) }
        case .tokenPasted(let expiresAt):
            open(TokenStory(entry: entries.count, reason: nil, expiresAt: expiresAt, left: Self.seconds(from: now, to: expiresAt), phase: .arrived), at: event.time)
        case .tokenRenewed(let method) where story?.phase == .arrived:
            moveStory(to: event.time)
            change { $0.phase = .renewed(method) }
        case .engine(.renewTokenResult(_, .success)) where story?.phase == .arrived:
            // The engine's answer; `tokenRenewed` says it on the token's line.
            return
        case .engine(.simulatorNotice(.tokenAccepted(let expiresAt, let short))) where story.map(Self.canAccept) ?? false:
            change { $0.accepted = true; $0.expiresAt = expiresAt; $0.left = Self.seconds(from: now, to: expiresAt); $0.short = short }
        case .engine(.simulatorNotice(.signatureNotChecked)) where story.map(Self.canAccept) ?? false:
            change { $0.signatureUnchecked = true }
        default:
            if Self.refuses(event) { change { $0.phase = .refused } }
            guard let spoken = event.spoken(in: voice) else { return }
            let (name, detail) = Self.line(for: event, named: spoken.name, in: voice.profile, tokenExpiresAt: tokenExpiresAt, now: now)
            append(Entry(time: event.time, name: name, detail: detail, tone: Self.tone(of: event)))
        }
    }

    /// Whether the engine refused the token it was handed: the token's line ends there.
    private static func refuses(_ event: SessionEvent) -> Bool {
        switch event.kind {
        case .engine(.renewTokenResult(_, let code)): code != .success
        case .engine(.didOccurError): true
        default: false
        }
    }

    private static func canAccept(_ story: TokenStory) -> Bool {
        guard !story.accepted else { return false }
        switch story.phase {
        case .arrived, .renewed: return true
        case .fetching, .failed, .refused: return false
        }
    }

    private mutating func open(_ story: TokenStory, at time: Duration) {
        append(Entry(time: time, name: "", detail: "", tone: .normal))
        var story = story
        story.entry = entries.count - 1
        self.story = story
        change { _ in }
    }

    /// Puts the open token's line last, at `time`: a renewal is read after the lines it waited for (the connection
    /// failing and coming back, a rejoin's leave and join).
    private mutating func moveStory(to time: Duration) {
        guard let index = story?.entry, entries.indices.contains(index), index != entries.count - 1 else { return }
        var entry = entries.remove(at: index)
        entry.time = time
        entries.append(entry)
        story?.entry = entries.count - 1
    }

    /// Changes the open token's story and writes its line again.
    private mutating func change(_ edit: (inout TokenStory) -> Void) {
        guard var story, entries.indices.contains(story.entry) else { return }
        edit(&story)
        self.story = story
        let (name, detail, tone) = Self.line(of: story)
        entries[story.entry].name = name
        entries[story.entry].detail = detail
        entries[story.entry].tone = tone
    }

    private mutating func append(_ entry: Entry) {
        entries.append(entry)
        let over = entries.count - Self.limit
        guard over > 0 else { return }
        entries.removeFirst(over)
        story?.entry -= over
        if let story, story.entry < 0 { self.story = nil }
    }

    /// `tokenRenewed renew, fetched in 97 ms, expires 18:04:21 (40s)`.
    private static func line(of story: TokenStory) -> (String, String, ScreenState.Tone) {
        let latency = story.latency.map { "in \($0.wholeMilliseconds) ms" }
        let fetch = [story.reason.map { "for \($0)" }, latency].compactMap { $0 }.joined(separator: " ")
        var expiry = story.expiresAt.map { at in
            "expires \(ScreenRenderer.clock(at))" + (story.left.map { " (\(span($0)))" } ?? "")
        }
        if story.short { expiry = expiry.map { $0 + ", warned at once" } }
        if story.signatureUnchecked { expiry = expiry.map { $0 + ", signature not checked" } }
        let parts = { (first: String) in ([first] + [expiry].compactMap { $0 }).filter { !$0.isEmpty }.joined(separator: ", ") }
        switch story.phase {
        case .fetching:
            return ("tokenFetchStarted", "for \(story.reason ?? "?")", .normal)
        case .arrived, .refused:
            let pasted = story.reason == nil && story.latency == nil
            return (pasted ? "tokenPasted" : "tokenFetched", parts(fetch), .good)
        case .renewed(let method):
            return ("tokenRenewed", parts("\(method.rawValue), " + (story.latency == nil ? "pasted" : "fetched \(fetch)")), .good)
        case .failed(let error, let retryIn):
            return ("tokenFetchFailed", "for \(story.reason ?? "?"): \(error.escapedForPrinting); \(retry(retryIn))", .bad)
        }
    }

    /// A line of its own: the event's name in the voice's words, and its fields in words where a time is in them.
    private static func line(for event: SessionEvent, named name: String, in profile: SDKProfile, tokenExpiresAt: Int64?,
                             now: Int64) -> (String, String) {
        let (own, detail) = line(for: event, tokenExpiresAt: tokenExpiresAt, now: now)
        let shown = own == event.name ? name : own
        guard case .engine(.connectionStateChanged(let state, let reason)) = event.kind else { return (shown, detail) }
        let spelled = profile.spelling(of: state, reason)
        return (shown, ([spelled.state] + (spelled.reason.map { [$0] } ?? [])).joined(separator: ", "))
    }

    private static func line(for event: SessionEvent, tokenExpiresAt: Int64?, now: Int64) -> (String, String) {
        switch event.kind {
        case .engine(.tokenPrivilegeWillExpire):
            return (event.name, tokenExpiresAt.map { "expires \(ScreenRenderer.clock($0)) (\(span(seconds(from: now, to: $0))))" } ?? "")
        case .engine(.requestToken):
            return (event.name, "the token has expired")
        case .engine(.simulatorNotice(.network(let down))):
            return ("network", down ? "cut (the simulator's link is down; token requests still reach the token server)" : "restored")
        case .engine(.simulatorNotice(.tokenAccepted(let expiresAt, let short))):
            return ("tokenAccepted", "expires \(ScreenRenderer.clock(expiresAt)) (\(span(seconds(from: now, to: expiresAt))))" + (short ? ", warned at once" : ""))
        case .engine(.simulatorNotice):
            // The notice's name, then its other fields.
            let fields = event.fields
            guard case .text(let notice)? = fields.first?.1 else { return (event.name, event.detail) }
            let rest = SessionEvent.detail(of: Array(fields.dropFirst()))
            return (notice, rest)
        case .tokenNeeded(let left):
            return (event.name, left > 0 ? "\(span(left)) left" : "the token has run out")
        case .tokenFetchFailed(let error, let retryIn):
            return (event.name, "\(error.escapedForPrinting); \(retry(retryIn))")
        case .tokenRenewed(let method):
            return (event.name, method.rawValue)
        default:
            return (event.name, event.noteText?.escapedForPrinting ?? event.detail)
        }
    }

    /// Seconds from `now` to `time`, within ±`Int64.max` (so it can be negated): a token's expiry comes from outside.
    static func seconds(from now: Int64, to time: Int64) -> Int64 {
        let (left, overflow) = time.subtractingReportingOverflow(now)
        return overflow || left == .min ? (time < now ? -.max : .max) : left
    }

    /// A length of time as the timeline's axis writes it (`40s`, `12m05s`, `3h20m`), never below zero.
    static func span(_ seconds: Int64) -> String { ScreenRenderer.shortTime(max(0, seconds)) }

    /// When a failed fetch is tried again, in whole seconds rounded up: `retry in 2s`, or `no retry`.
    private static func retry(_ retryIn: Duration?) -> String {
        retryIn.map { "retry in \(span($0.secondsRoundedUp))" } ?? "no retry"
    }

    static func tone(of event: SessionEvent) -> ScreenState.Tone {
        switch event.kind {
        case .tokenRenewed, .tokenFetched, .tokenPasted: return .good
        case .tokenNeeded: return .warning
        case .tokenFetchFailed, .stuck, .sessionEnded(failed: true): return .bad
        case .engine(let callback):
            switch callback {
            case .tokenPrivilegeWillExpire: return .warning
            case .requestToken, .didOccurError: return .bad
            case .renewTokenResult(_, let code): return code == .success ? .good : .bad
            case .simulatorNotice(.network(down: true)), .simulatorNotice(.hubLost): return .warning
            case .connectionStateChanged(let state, _):
                switch state {
                case .connected: return .good
                case .failed: return .bad
                case .reconnecting, .connecting: return .warning
                case .disconnected: return .normal
                }
            default: return .normal
            }
        default: return .normal
        }
    }
}
