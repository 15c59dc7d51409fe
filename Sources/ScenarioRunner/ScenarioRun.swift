import AccessToken
import CallSession
import ChannelEngine
import Scenarios
import Timers
import TokenClient

/// One scenario carried out against a call, or two in one hub channel (A's and B's): its actions as a person's
/// commands, its checks on each session's typed events, on the calls' one clock — a `LeapClock` under it at
/// `--speed max`, which leaps to the next timer whenever no call waits for the token server, or the real one at
/// `--speed N`.
@MainActor
public final class ScenarioRun {
    /// How a scenario's time passes.
    public enum Time {
        /// The call's clock stands on this leap clock: it leaps from timer to timer, and stands while the call waits for
        /// the token server.
        case leaping(LeapClock)
        /// The call's clock runs at its own speed over the real one.
        case running
    }

    /// How a scenario ended.
    public struct Outcome: Sendable {
        public let scenario: String
        /// The step that failed, with what was expected and the last events before it; nil when every step passed.
        public let failure: Failure?
        /// Every event of A's call, in order.
        public let events: [SessionEvent]
        /// Every event of B's call, in order; none without a `B:` step.
        public let eventsOfB: [SessionEvent]
        /// A's call's time when it ended.
        public let callTime: Duration

        public var passed: Bool { failure == nil }
    }

    /// A step that did not hold.
    public struct Failure: Sendable, Equatable, CustomStringConvertible {
        public let line: Int
        public let step: String
        /// What was expected and what happened instead, in words.
        public let words: String
        /// The last events before the failure, as the headless lines print them in the call's SDK's words (each with its
        /// participant's prefix when there are two).
        public let lastEvents: [String]

        public var description: String { "line \(line): \(step): \(words)" }
    }

    /// How many of the last events a failure shows.
    public static let shownEvents = 8

    /// Whether a failure shows `event` among the last ones: not the reports the engine repeats (periodic, network
    /// quality, the active speaker, remote video), which would crowd out the token's story.
    static func tellsTheStory(_ event: SessionEvent) -> Bool {
        switch event.kind {
        case .engine(.networkQuality), .engine(.activeSpeaker), .engine(.remoteVideoStateChanged): false
        default: !event.isPeriodic
        }
    }

    /// One person's call: as its steps before its first `join` configure it, where its tokens come from, and its
    /// session from that `join` on.
    public struct Call {
        public var configuration: CallSession.Configuration
        public let tokens: TokenOrigin
        var session: CallSession?

        public init(configuration: CallSession.Configuration, tokens: TokenOrigin) {
            self.configuration = configuration
            self.tokens = tokens
        }
    }

    private let scenario: Scenario
    private var calls: [ScenarioParticipant: Call]
    private let time: Time
    /// The calls' clock, as time since the run began.
    private let now: @Sendable () -> Duration
    /// Every event of every call, in the order they came.
    private var events: [(who: ScenarioParticipant, event: SessionEvent)] = []
    /// When the first session started, on `now`.
    private var firstStart: Duration?
    /// Each participant's events before this index have been passed by an `expect` of theirs that held.
    private var cursors: [ScenarioParticipant: Int] = [:]
    /// Whether the embedded server is running (the scenario's `stop server` and `start server`).
    private var serverRunning = true
    /// Called at the next event (and then dropped) while the runner waits for one.
    private var onEvent: (() -> Void)?
    /// How many waits for an event there have been: a fallback ends only its own.
    private var waits = 0
    /// The deadline of a wait on the running clock.
    private var deadlines: TimerQueue?

    /// Called with each person's session as it is made, before it starts (a recorder observes it first).
    public var starting: ((ScenarioParticipant, CallSession) -> Void)?

    /// A run of `scenario` with a session made from `configuration` (whose clock is the scenario's) at the first `join`.
    public convenience init(_ scenario: Scenario, configuration: CallSession.Configuration, tokens: TokenOrigin, time: Time) {
        self.init(scenario, calls: [.a: Call(configuration: configuration, tokens: tokens)], time: time)
    }

    /// A run of `scenario` with each participant's session made from its call at its first `join`; every call's
    /// configuration has the same clock, A's.
    public init(_ scenario: Scenario, calls: [ScenarioParticipant: Call], time: Time) {
        self.scenario = scenario
        self.calls = calls
        self.time = time
        voice = calls[.a]?.configuration.voice ?? .standard
        let clock: any Clock<Duration> = calls[.a]?.configuration.clock ?? ContinuousClock()
        now = ElapsedClock(clock).now
    }

    /// `configuration` as `participant`'s steps before their first `join` set it (role, renew method, auto-renew,
    /// account): the call to get tokens for.
    public static func configuration(_ configuration: CallSession.Configuration, for scenario: Scenario,
                                     participant: ScenarioParticipant = .a) -> CallSession.Configuration {
        var configuration = configuration
        for step in scenario.steps where step.participant == participant {
            switch step.action {
            case .join: return configuration
            case .method(let method): configuration.renewMethod = RenewMethod(rawValue: method.rawValue) ?? .renew
            case .autoRenew(let on): configuration.autoRenew = on
            case .role(let role): configuration.role = role == .audience ? .audience : .broadcaster
            case .account(let account) where (try? AgoraID.validateAccount(account)) != nil: configuration.user = .account(account)
            default: break
            }
        }
        return configuration
    }

    /// Carries every step out in order, stopping at the first that fails, then leaves the call.
    public func run() async -> Outcome {
        var failure: Failure?
        let prefixed = scenario.hasSecondParticipant
        for step in scenario.steps {
            if prefixed, case .leaping = time, !step.action.isCheck {
                // Two calls' requests never race: one's answer comes before the other's next step (no call time passes).
                while waitsForTokenServer { await nextEvent() }
            }
            if let words = await perform(step.action, by: step.participant) {
                let told = events.filter { Self.tellsTheStory($0.event) }
                    .compactMap { told in told.event.textLine(in: voice).map { prefixed ? "\(told.who.rawValue): \($0)" : $0 } }
                    .suffix(Self.shownEvents)
                failure = Failure(line: step.line, step: step.text, words: words,
                                  lastEvents: Array(told))
                break
            }
        }
        await finish()
        let of = { (who: ScenarioParticipant) in self.events.filter { $0.who == who }.map(\.event) }
        return Outcome(scenario: scenario.name, failure: failure, events: of(.a), eventsOfB: of(.b),
                       callTime: calls[.a]?.session?.now ?? .zero)
    }

    /// The sessions that have started, in the order they did.
    private var sessions: [CallSession] = []

    /// Carries out one step of `who`'s; what went wrong, in words, when it does not hold.
    private func perform(_ action: ScenarioAction, by who: ScenarioParticipant) async -> String? {
        guard var call = calls[who] else { return "the run has no call for \(who.rawValue)" }
        defer { calls[who] = call }
        let session = call.session
        func withSession(_ body: (CallSession) -> Void) -> String? {
            guard let session else { return "join first" }
            body(session)
            return nil
        }
        switch action {
        case .join:
            guard let session else {
                call.session = start(call, for: who)
                return nil
            }
            session.join()
        case .leave: return withSession { $0.leave() }
        case .rejoin: return withSession { $0.rejoin() }
        case .renew: return withSession { $0.renewNow() }
        case .method(let method):
            let method = RenewMethod(rawValue: method.rawValue) ?? .renew
            if let session { session.setRenewMethod(method) } else { call.configuration.renewMethod = method }
        case .autoRenew(let on):
            if let session { session.setAutoRenew(on) } else { call.configuration.autoRenew = on }
        case .role(let role):
            let role: AgoraClientRole = role == .audience ? .audience : .broadcaster
            guard let session, session.engine != nil else {
                call.configuration.role = role
                return nil
            }
            if session.engine?.clientRole != role { session.switchRole() }
        case .account(let account):
            guard session == nil else { return "the account is set before the first join" }
            do throws(TokenError) { try AgoraID.validateAccount(account) } catch { return "account: \(error)" }
            call.configuration.user = .account(account)
        case .expire: return withSession { $0.expireNow() }
        case .network(let up):
            guard let engine = session?.engine else { return "the call has no engine yet: join first" }
            if engine.isNetworkInterrupted == up { session?.toggleNetwork() }
        case .server(let running):
            // The token server is the run's: the first call that has joined stops and starts it.
            guard call.tokens.ownServer != nil else { return "only the embedded token server can be stopped and started; drop --token-url" }
            guard let session = sessions.first else { return "join first" }
            if serverRunning != running {
                session.toggleTokenServer()
                serverRunning = running
            }
        case .misconfigure(let word):
            guard let mistakes = call.tokens.ownServer?.mistakes else {
                return "only the embedded token server makes mistakes on purpose; drop --token-url"
            }
            let wanted = word.flatMap(TokenMistake.init(rawValue:))
            if let session = sessions.first { session.setMistake(wanted) } else { mistakes.set(wanted) }
        case .paste(let text):
            guard let session else { return "join first (a pasted token is handed over in a call)" }
            do throws(PastedTokenError) {
                session.paste(try PastedToken(text, unixTime: call.configuration.tokenUnixTime()))
            } catch {
                return "the pasted text is not a token to join with: \(error)"
            }
        case .users(let count):
            guard let session, let engine = session.engine, engine.simulatedRemoteUserCount != nil else { return "join first" }
            // Each turn adds or removes one; a turn that cannot (the engine left the channel meanwhile) ends the step.
            for _ in 0...(2 * AgoraRtcEngineKit.remoteUserLimit) {
                guard let now = engine.simulatedRemoteUserCount, now != count else { break }
                if now < count { session.addRemoteUser() } else { session.removeRemoteUser() }
            }
            let now = engine.simulatedRemoteUserCount
            if now != count { return "expected \(count) remote users; there are \(now.map(String.init) ?? "none, out of the channel")" }
        case .wait(let duration):
            _ = await advance(for: duration) { false }
        case .expect(let match, let within):
            if let word = SDKWord(rawValue: match.event), voice.name(of: word) == nil {
                return "expected \(match) within \(Self.shown(within)); the \(voice.profile.title) SDK has no \(match.event) (Docs/sdk-profiles.md)"
            }
            let found = scanner(for: match, of: who, from: cursors[who] ?? 0)
            guard await advance(for: within, until: { found() != nil }), let index = found() else {
                return "expected \(spoken(match)) within \(Self.shown(within)); none came" + nearMiss(match, of: who)
            }
            cursors[who] = index + 1
        case .expectNo(let match, let duration):
            let found = scanner(for: match, of: who, from: events.count)
            if await advance(for: duration, until: { found() != nil }), let index = found() {
                let event = events[index].event
                return "expected no \(spoken(match)) for \(Self.shown(duration)); one came at \(SessionEvent.decimal(event.time))s: "
                    + (event.textLine(in: voice) ?? event.textLine)
            }
        case .expectState(let state):
            await settle()
            let now = call.session?.engine?.connectionState.name ?? AgoraConnectionState.disconnected.name
            if now != state { return "expected the connection state \(state); it is \(now)" }
        case .expectFetches(let count):
            await settle()
            let answered = call.session?.answeredFetchCount ?? 0
            if answered != count { return "expected \(count) token request\(count == 1 ? "" : "s") answered; there were \(answered)" }
        }
        return nil
    }

    /// Starts `who`'s session. Its events are timed from the first session's start, so that two calls' read as one story.
    private func start(_ call: Call, for who: ScenarioParticipant) -> CallSession {
        let started = now()
        firstStart = firstStart ?? started
        let shift = started - (firstStart ?? started)
        let session = CallSession(call.configuration, tokens: call.tokens)
        sessions.append(session)
        starting?(who, session)
        session.observe { [weak self] event in
            guard let self else { return }
            events.append((who, shift == .zero ? event : SessionEvent(time: event.time + shift, kind: event.kind)))
            onEvent?()
        }
        session.start()
        return session
    }

    /// Finds the first of `who`'s events from `start` on that `match` describes, looking at each event once however
    /// often it is asked: the event's index, or nil while none has come.
    private func scanner(for match: EventMatch, of who: ScenarioParticipant, from start: Int) -> () -> Int? {
        var next = start
        var found: Int?
        return { [unowned self] in
            while found == nil, next < events.count {
                if events[next].who == who, describes(match, events[next].event) { found = next }
                next += 1
            }
            return found
        }
    }

    /// Whether `event`, as the call's SDK fires it, is what `match` asks for: a field's value in iOS's spelling or the SDK's.
    private func describes(_ match: EventMatch, _ event: SessionEvent) -> Bool {
        guard let heard = voice == .standard ? event : event.heard(in: voice), heard.name == match.event else { return false }
        guard !match.fields.isEmpty else { return true }
        let fields = heard.fields + (voice == .standard ? [] : heard.spoken(in: voice)?.fields ?? [])
        return match.fields.allSatisfy { wanted in
            fields.contains { $0.0 == wanted.name && SessionEvent.comparable($0.1) == wanted.value }
        }
    }

    /// The calls' SDK, whose events a scenario checks and whose words its failures are in.
    private let voice: SDKVoice

    /// `match` with its event named in the call's SDK's words.
    private func spoken(_ match: EventMatch) -> EventMatch {
        guard let word = SDKWord(rawValue: match.event), let name = voice.name(of: word) else { return match }
        return EventMatch(event: name, fields: match.fields)
    }

    /// The last event of the awaited name that came with other fields, to show beside a failed `expect`.
    private func nearMiss(_ match: EventMatch, of who: ScenarioParticipant) -> String {
        guard !match.fields.isEmpty,
              let near = events[min(cursors[who] ?? 0, events.count)...].last(where: { $0.who == who && $0.event.heard(in: voice)?.name == match.event }),
              let line = near.event.heard(in: voice)?.textLine(in: voice) else { return "" }
        return "; the last \(spoken(match).event) was \(line)"
    }

    /// Runs the call for `duration` of its time, or until `done` holds; returns whether it did.
    private func advance(for duration: Duration, until done: @escaping () -> Bool) async -> Bool {
        guard !sessions.isEmpty else {
            if case .leaping(let clock) = time { await clock.advance(by: duration) }
            return done()
        }
        let deadline = now() + duration
        switch time {
        case .leaping(let clock):
            while true {
                if done() { return true }
                if waitsForTokenServer {
                    await nextEvent()
                    continue
                }
                let left = deadline - now()
                guard left > .zero else { return false }
                await clock.leap(toward: clock.now.advanced(by: left))
                if now() >= deadline {
                    // What is due at the deadline itself has run; one leap more runs what it queued for now.
                    await clock.leap(toward: clock.now)
                    return done()
                }
            }
        case .running:
            if done() { return true }
            let timers = deadlines ?? TimerQueue(clock: calls[.a]?.configuration.clock ?? ContinuousClock())
            deadlines = timers
            let found = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let timer = timers.schedule(after: duration) { [weak self] in
                    self?.onEvent = nil
                    continuation.resume(returning: done())
                }
                onEvent = { [weak self] in
                    guard done() else { return }
                    self?.onEvent = nil
                    timers.cancel(timer)
                    continuation.resume(returning: true)
                }
            }
            return found
        }
    }

    /// Waits for the session's next event. A request under way always ends with one (`tokenFetched` or
    /// `tokenFetchFailed`, at the latest at its deadline); a planned retry may end without one, so then a few
    /// milliseconds of real time end the wait too.
    private func nextEvent() async {
        waits += 1
        let wait = waits
        let seen = events.count
        // Resumed on the main queue where the session's event comes from, not through Swift's shared threads: one thread
        // wake-up fewer for each renewal of a leaping day.
        await withTaskExecutorPreference(MainQueueExecutor.shared) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Getting here may have let the main queue run: an event that came meanwhile is the one waited for.
                guard events.count == seen else { return continuation.resume() }
                let fetching = sessions.contains(where: \.fetchingToken)
                let fallback = fetching ? nil : Task { @MainActor [weak self] in
                    try? await Task.sleep(for: .milliseconds(5))
                    guard let self, waits == wait, onEvent != nil else { return }
                    onEvent = nil
                    continuation.resume()
                }
                onEvent = { [weak self] in
                    self?.onEvent = nil
                    fallback?.cancel()
                    continuation.resume()
                }
            }
        }
    }

    /// Runs what is due now (callbacks queued for the main actor) and lets a request under way end, so a check reads the
    /// call as it stands.
    private func settle() async {
        guard !sessions.isEmpty else { return }
        switch time {
        case .leaping(let clock):
            while waitsForTokenServer { await nextEvent() }
            await clock.leap(toward: clock.now)
        case .running:
            await Task.yield()
        }
    }

    /// Whether a call waits for the token server (`CallSession.waitsForTokenServer`).
    private var waitsForTokenServer: Bool { sessions.contains(where: \.waitsForTokenServer) }

    /// Leaves the calls and waits for their end.
    private func finish() async {
        let sessions = sessions
        for session in sessions { session.stop() }
        switch time {
        case .leaping(let clock):
            var turns = 0
            while sessions.contains(where: { !$0.ended }), turns < 10_000 {
                turns += 1
                if waitsForTokenServer { await nextEvent() } else { await clock.advance(by: .milliseconds(100)) }
            }
        case .running:
            for session in sessions { await session.untilEnded() }
        }
    }

    private static func shown(_ duration: Duration) -> String {
        let millis = duration.wholeMilliseconds
        return millis % 1000 == 0 ? "\(millis / 1000)s" : "\(millis)ms"
    }
}

extension ScenarioAction {
    /// Whether the step checks the call rather than acting on it.
    var isCheck: Bool {
        switch self {
        case .expect, .expectNo, .expectState, .expectFetches: true
        default: false
        }
    }
}
