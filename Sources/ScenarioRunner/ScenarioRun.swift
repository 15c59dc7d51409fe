import AccessToken
import CallSession
import ChannelEngine
import Scenarios
import Timers
import TokenClient

/// One scenario carried out against a call: its actions as a person's commands, its checks on the session's typed
/// events, on the call's clock — a `LeapClock` under it at `--speed max`, which leaps to the next timer whenever the
/// call does not wait for the token server, or the real one at `--speed N`.
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
        /// Every event of the call, in order.
        public let events: [SessionEvent]
        /// The call's time when it ended.
        public let callTime: Duration

        public var passed: Bool { failure == nil }
    }

    /// A step that did not hold.
    public struct Failure: Sendable, Equatable, CustomStringConvertible {
        public let line: Int
        public let step: String
        /// What was expected and what happened instead, in words.
        public let words: String
        /// The last events before the failure, as `--json`'s text lines.
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

    private let scenario: Scenario
    private var configuration: CallSession.Configuration
    private let tokens: TokenOrigin
    private let time: Time
    private var session: CallSession?
    private var events: [SessionEvent] = []
    /// Events before this index have been passed by an `expect` that held.
    private var cursor = 0
    /// Whether the embedded server is running (the scenario's `stop server` and `start server`).
    private var serverRunning = true
    /// Called at the next event (and then dropped) while the runner waits for one.
    private var onEvent: (() -> Void)?
    /// How many waits for an event there have been: a fallback ends only its own.
    private var waits = 0
    /// The deadline of a wait on the running clock.
    private var deadlines: TimerQueue?

    /// Called with the session as it is made, before it starts (a recorder observes it first).
    public var starting: ((CallSession) -> Void)?

    /// A run of `scenario` with a session made from `configuration` (whose clock is the scenario's) at the first `join`.
    public init(_ scenario: Scenario, configuration: CallSession.Configuration, tokens: TokenOrigin, time: Time) {
        self.scenario = scenario
        self.configuration = configuration
        self.tokens = tokens
        self.time = time
    }

    /// `configuration` as the steps before the scenario's first `join` set it (role, renew method, auto-renew, account):
    /// the call to get tokens for.
    public static func configuration(_ configuration: CallSession.Configuration, for scenario: Scenario) -> CallSession.Configuration {
        var configuration = configuration
        for step in scenario.steps {
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
        for step in scenario.steps {
            if let words = await perform(step.action) {
                failure = Failure(line: step.line, step: step.text, words: words,
                                  lastEvents: events.filter(Self.tellsTheStory).suffix(Self.shownEvents).map(\.textLine))
                break
            }
        }
        await finish()
        return Outcome(scenario: scenario.name, failure: failure, events: events, callTime: session?.now ?? .zero)
    }

    /// Carries out one step; what went wrong, in words, when it does not hold.
    private func perform(_ action: ScenarioAction) async -> String? {
        switch action {
        case .join:
            guard let session else { return start() }
            session.join()
        case .leave: return withSession { $0.leave() }
        case .rejoin: return withSession { $0.rejoin() }
        case .renew: return withSession { $0.renewNow() }
        case .method(let method):
            let method = RenewMethod(rawValue: method.rawValue) ?? .renew
            if let session { session.setRenewMethod(method) } else { configuration.renewMethod = method }
        case .autoRenew(let on):
            if let session { session.setAutoRenew(on) } else { configuration.autoRenew = on }
        case .role(let role):
            let role: AgoraClientRole = role == .audience ? .audience : .broadcaster
            guard let session, session.engine != nil else {
                configuration.role = role
                return nil
            }
            if session.engine?.clientRole != role { session.switchRole() }
        case .account(let account):
            guard session == nil else { return "the account is set before the first join" }
            do throws(TokenError) { try AgoraID.validateAccount(account) } catch { return "account: \(error)" }
            configuration.user = .account(account)
        case .expire: return withSession { $0.expireNow() }
        case .network(let up):
            guard let engine = session?.engine else { return "the call has no engine yet: join first" }
            if engine.isNetworkInterrupted == up { session?.toggleNetwork() }
        case .server(let running):
            guard tokens.ownServer != nil else { return "only the embedded token server can be stopped and started; drop --token-url" }
            guard let session else { return "join first" }
            if serverRunning != running {
                session.toggleTokenServer()
                serverRunning = running
            }
        case .misconfigure(let word):
            guard let mistakes = tokens.ownServer?.mistakes else {
                return "only the embedded token server makes mistakes on purpose; drop --token-url"
            }
            let wanted = word.flatMap(TokenMistake.init(rawValue:))
            if let session { session.setMistake(wanted) } else { mistakes.set(wanted) }
        case .paste(let text):
            guard let session else { return "join first (a pasted token is handed over in a call)" }
            do throws(PastedTokenError) {
                session.paste(try PastedToken(text, unixTime: configuration.tokenUnixTime()))
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
            let found = scanner(for: match, from: cursor)
            guard await advance(for: within, until: { found() != nil }), let index = found() else {
                return "expected \(match) within \(Self.shown(within)); none came" + nearMiss(match)
            }
            cursor = index + 1
        case .expectNo(let match, let duration):
            let found = scanner(for: match, from: events.count)
            if await advance(for: duration, until: { found() != nil }), let index = found() {
                return "expected no \(match) for \(Self.shown(duration)); one came at \(SessionEvent.decimal(events[index].time))s: "
                    + events[index].textLine
            }
        case .expectState(let state):
            await settle()
            let now = session?.engine?.connectionState.name ?? AgoraConnectionState.disconnected.name
            if now != state { return "expected the connection state \(state); it is \(now)" }
        case .expectFetches(let count):
            await settle()
            let answered = session?.answeredFetchCount ?? 0
            if answered != count { return "expected \(count) token request\(count == 1 ? "" : "s") answered; there were \(answered)" }
        }
        return nil
    }

    private func start() -> String? {
        let session = CallSession(configuration, tokens: tokens)
        self.session = session
        starting?(session)
        session.observe { [weak self] event in
            guard let self else { return }
            events.append(event)
            onEvent?()
        }
        session.start()
        return nil
    }

    private func withSession(_ body: (CallSession) -> Void) -> String? {
        guard let session else { return "join first" }
        body(session)
        return nil
    }

    /// Finds the first event from `start` on that `match` describes, looking at each event once however often it is
    /// asked: the event's index, or nil while none has come.
    private func scanner(for match: EventMatch, from start: Int) -> () -> Int? {
        var next = start
        var found: Int?
        return { [unowned self] in
            while found == nil, next < events.count {
                if Self.describes(match, events[next]) { found = next }
                next += 1
            }
            return found
        }
    }

    private static func describes(_ match: EventMatch, _ event: SessionEvent) -> Bool {
        guard event.name == match.event else { return false }
        let fields = event.fields
        return match.fields.allSatisfy { wanted in
            fields.contains { $0.0 == wanted.name && SessionEvent.comparable($0.1) == wanted.value }
        }
    }

    /// The last event of the awaited name that came with other fields, to show beside a failed `expect`.
    private func nearMiss(_ match: EventMatch) -> String {
        guard !match.fields.isEmpty, let near = events[min(cursor, events.count)...].last(where: { $0.name == match.event }) else { return "" }
        return "; the last \(match.event) was \(near.textLine)"
    }

    /// Runs the call for `duration` of its time, or until `done` holds; returns whether it did.
    private func advance(for duration: Duration, until done: @escaping () -> Bool) async -> Bool {
        guard let session else {
            if case .leaping(let clock) = time { await clock.advance(by: duration) }
            return done()
        }
        let deadline = session.now + duration
        switch time {
        case .leaping(let clock):
            while true {
                if done() { return true }
                if session.waitsForTokenServer {
                    await nextEvent()
                    continue
                }
                let left = deadline - session.now
                guard left > .zero else { return false }
                await clock.leap(toward: clock.now.advanced(by: left))
                if session.now >= deadline {
                    // What is due at the deadline itself has run; one leap more runs what it queued for now.
                    await clock.leap(toward: clock.now)
                    return done()
                }
            }
        case .running:
            if done() { return true }
            let timers = deadlines ?? TimerQueue(clock: configuration.clock)
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
        let fetching = session?.fetchingToken ?? false
        // Resumed on the main queue where the session's event comes from, not through Swift's shared threads: one thread
        // wake-up fewer for each renewal of a leaping day.
        await withTaskExecutorPreference(MainQueueExecutor.shared) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
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
        guard let session else { return }
        switch time {
        case .leaping(let clock):
            while session.waitsForTokenServer { await nextEvent() }
            await clock.leap(toward: clock.now)
        case .running:
            await Task.yield()
        }
    }

    /// Leaves the call and waits for its end.
    private func finish() async {
        guard let session else { return }
        session.stop()
        switch time {
        case .leaping(let clock):
            var turns = 0
            while !session.ended, turns < 10_000 {
                turns += 1
                if session.waitsForTokenServer { await nextEvent() } else { await clock.advance(by: .milliseconds(100)) }
            }
        case .running:
            await session.untilEnded()
        }
    }

    private static func shown(_ duration: Duration) -> String {
        let millis = duration.wholeMilliseconds
        return millis % 1000 == 0 ? "\(millis / 1000)s" : "\(millis)ms"
    }
}
