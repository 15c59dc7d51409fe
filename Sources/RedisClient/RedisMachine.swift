/// One Redis connection's exchanges as a value, without I/O: commands wait in order with what to do with their
/// answers, everything waiting goes out in one write once connected (after AUTH and SELECT), answers are matched to
/// commands in order as `RESPReader` reads them, and each request must be answered within `deadline` of being asked,
/// connecting included. A failure of any kind fails every waiting request in words and drops the connection; the next
/// request connects again. `RedisConnection` carries its actions out on an event loop.
struct RedisMachine {
    typealias Instant = ContinuousClock.Instant
    typealias Completion = (Result<[RESPValue], RedisError>) -> Void

    enum Phase: Equatable {
        /// No connection: the next request connects.
        case idle
        /// Connect `attempt` is under way (a name's lookup, then TCP).
        case connecting(attempt: Int)
        /// Connected; the first `setupLeft` answers are the setup's (AUTH, SELECT).
        case open(setupLeft: Int)
    }

    enum Action {
        /// Start connect `attempt`; its end comes back as `connected(attempt:)` or `failed(attempt:_:)`.
        case connect(attempt: Int)
        /// Close the connection's socket.
        case disconnect
        /// Call a request's completion (after the event's work is done, so that it may ask more).
        case answer(Completion, Result<[RESPValue], RedisError>)
    }

    /// Commands sent together and answered together.
    private struct Request {
        let count: Int
        let deadline: Instant
        let completion: Completion
        var answers: [RESPValue] = []
    }

    let address: RedisAddress
    let deadline: Duration
    /// The most commands that may wait for answers at once (a hub's renewal is one a channel held, and a hub holds at
    /// most one channel a connection); more are refused at once.
    let maxWaiting: Int
    private(set) var phase = Phase.idle
    private var attempts = 0
    private var waiting: [Request] = []
    private var first = 0
    private var waitingCommands = 0
    /// Bytes of the waiting commands not yet taken for the socket.
    private var unsent: [UInt8] = []
    private var reader = RESPReader()

    init(address: RedisAddress, deadline: Duration, maxWaiting: Int = 65_536) {
        (self.address, self.deadline, self.maxWaiting) = (address, deadline, maxWaiting)
    }

    /// When the oldest waiting request runs out of time.
    var nextDeadline: Instant? { first < waiting.count ? waiting[first].deadline : nil }

    /// Whether bytes wait to be taken for the socket (only once connected).
    var hasUnsent: Bool {
        if case .open = phase { !unsent.isEmpty } else { false }
    }

    // MARK: Events

    /// Asks `commands` (sent together, answered together, in order) and calls `completion` with their answers.
    mutating func ask(_ commands: [[String]], now: Instant, completion: @escaping Completion) -> [Action] {
        guard !commands.isEmpty else { return [.answer(completion, .success([]))] }
        guard waitingCommands + commands.count <= maxWaiting else {
            return [.answer(completion, .failure(RedisError(
                description: "\(waitingCommands) commands already wait for \(address); this one was not sent, try again later")))]
        }
        waiting.append(Request(count: commands.count, deadline: now + deadline, completion: completion))
        waitingCommands += commands.count
        for command in commands { unsent += RESPCommand.encode(command) }
        guard case .idle = phase else { return [] }
        attempts += 1
        phase = .connecting(attempt: attempts)
        return [.connect(attempt: attempts)]
    }

    /// Connect `attempt` succeeded: the setup goes first, then everything waiting.
    mutating func connected(attempt: Int) {
        guard phase == .connecting(attempt: attempt) else { return }
        var setup: [[String]] = []
        if let password = address.password { setup.append(["AUTH", password]) }
        if address.database != 0 { setup.append(["SELECT", String(address.database)]) }
        unsent = setup.flatMap(RESPCommand.encode) + unsent
        reader = RESPReader()
        phase = .open(setupLeft: setup.count)
    }

    /// What goes to the socket now: every command asked since the last take, in one piece.
    mutating func takeUnsent() -> [UInt8] {
        guard hasUnsent else { return [] }
        defer { unsent = [] }
        return unsent
    }

    /// Bytes the server sent.
    mutating func received(_ bytes: some Collection<UInt8>) -> [Action] {
        guard case .open = phase else { return [] }
        reader.append(bytes)
        var actions: [Action] = []
        while true {
            let value: RESPValue?
            do throws(RESPError) { value = try reader.next() } catch {
                return failing("\(address) sent what is not RESP: \(error)", after: actions)
            }
            guard let value, case .open(let setupLeft) = phase else { return actions }
            if setupLeft > 0 {
                if case .error(let message) = value {
                    // A server that does not know AUTH quotes its arguments ("with args beginning with: …").
                    return failing("\(address) refused the connection's setup: \(address.hidingPassword(in: message))", after: actions)
                }
                phase = .open(setupLeft: setupLeft - 1)
                continue
            }
            guard first < waiting.count else { return failing("\(address) sent an answer to nothing asked", after: actions) }
            waiting[first].answers.append(value)
            guard waiting[first].answers.count == waiting[first].count else { continue }
            let done = waiting[first]
            first += 1
            waitingCommands -= done.count
            if first == waiting.count || first > 256 { waiting.removeFirst(first); first = 0 }
            actions.append(.answer(done.completion, .success(done.answers)))
        }
    }

    /// Connect `attempt`, or the open connection (`attempt` nil), failed: `why`, in words.
    mutating func failed(attempt: Int? = nil, _ why: String) -> [Action] {
        switch (phase, attempt) {
        case (.connecting(let current), let attempt?) where attempt == current: return fail("cannot connect to \(address): \(why)")
        case (.open, nil): return fail("the connection to \(address) \(why)")
        default: return []
        }
    }

    /// Time passed: a request not answered by its deadline fails, and every other with it.
    mutating func tick(now: Instant) -> [Action] {
        guard let due = nextDeadline, now >= due else { return [] }
        if case .connecting = phase { return fail("cannot connect to \(address): no connection within \(deadline)") }
        return fail("\(address) did not answer within \(deadline)")
    }

    /// Ends the connection on purpose: every waiting request fails with `why`.
    mutating func close(_ why: String) -> [Action] { fail(why) }

    /// `fail`, with the answers given before it: the disconnect first, so that a completion that asks again gets a
    /// connection the rest of the list leaves alone.
    private mutating func failing(_ why: String, after answered: [Action]) -> [Action] {
        var failed = fail(why)
        guard case .disconnect? = failed.first else { return answered + failed }
        failed.removeFirst()
        return [.disconnect] + answered + failed
    }

    private mutating func fail(_ why: String) -> [Action] {
        let hadSocket = phase != .idle
        let failed = waiting[first...]
        (waiting, first, waitingCommands, unsent, reader, phase) = ([], 0, 0, [], RESPReader(), .idle)
        let error = RedisError(description: why)
        return (hadSocket ? [.disconnect] : []) + failed.map { .answer($0.completion, .failure(error)) }
    }
}
