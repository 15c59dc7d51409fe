import CLinux
import Synchronization
import Timers
#if canImport(Glibc)
import Glibc
#endif

/// One thread that waits on epoll for its sockets to be ready and for its deadlines, and runs what other threads
/// hand it. Everything registered on a loop belongs to its thread: handlers, timers and hooks run there, one at a
/// time, so what they touch needs no lock. Other threads reach it only through `execute`, `wake` and `stop`; the
/// entry points of its thread trap anywhere else. It is a serial executor: an actor on it runs on its thread.
/// Unchecked because its thread's state is guarded by the `inLoop` checks, not by the compiler.
public final class EventLoop: @unchecked Sendable {
    /// What a registration waits for.
    public struct Interest: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let read = Interest(rawValue: 1)
        public static let write = Interest(rawValue: 2)
    }

    /// What a socket is ready for; a closed or failed socket is readable (its receive says which).
    public struct Readiness: Sendable {
        public let readable: Bool
        public let writable: Bool
    }

    /// A registered descriptor, until `deregister`.
    public struct Registration: Hashable, Sendable {
        fileprivate let id: UInt64
    }

    /// A scheduled deadline, until it runs or is cancelled.
    public struct Timer: Hashable, Sendable {
        fileprivate let id: UInt64
    }

    private typealias Job = @Sendable () -> Void

    public let name: String
    private let epoll: Int32
    private let mailbox: Mailbox<Job>
    private let stopping = Atomic(false)
    private let thread = Mutex<pthread_t?>(nil)
    private let threadID = Atomic<UInt>(0)
    // The rest belongs to the loop's thread.
    private var entries: [UInt64: Entry] = [:]
    private var nextID: UInt64 = 1  // 0 is the mailbox's
    private var timers = DeadlineHeap()
    private var timerWork: [UInt64: () -> Void] = [:]
    private var turnHooks: [() -> Void] = []
    private var stopHooks: [() -> Void] = []

    /// Starts the loop's thread, named `name` (at most 15 bytes show).
    public init(name: String) throws(SocketError) {
        self.name = name
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw SocketError("epoll_create1") }
        do {
            mailbox = try Mailbox()
        } catch {
            _ = Glibc.close(epoll)
            throw error
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = 0
        _ = epoll_ctl(epoll, EPOLL_CTL_ADD, mailbox.wakeFD, &event)
        var handle = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let started = pthread_create(&handle, nil, { context in
            let loop = Unmanaged<EventLoop>.fromOpaque(context!).takeRetainedValue()
            loop.run()
            return nil
        }, context)
        guard started == 0 else {
            Unmanaged<EventLoop>.fromOpaque(context).release()
            throw SocketError("pthread_create", code: started)
        }
        thread.withLock { $0 = handle }
    }

    deinit { _ = Glibc.close(epoll) }

    // MARK: From any thread

    /// Runs `work` on the loop's thread, after what was handed before it; false (and `work` dropped) once the loop
    /// has stopped, so that whoever hands a socket over can close it instead.
    @discardableResult
    public func execute(_ work: @escaping @Sendable () -> Void) -> Bool { mailbox.hand(work) }

    /// Makes the loop run a turn soon (its turn hooks run).
    public func wake() { mailbox.wake() }

    /// Whether the caller runs on this loop's thread.
    public var inLoop: Bool { threadID.load(ordering: .acquiring) == UInt(pthread_self()) }

    public var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Runs what was handed before, then the stop hooks, and ends the thread; from another thread, returns once it
    /// has ended.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        mailbox.wake()
        guard let handle = thread.withLock({ held -> pthread_t? in defer { held = nil }; return held }) else { return }
        if inLoop {
            pthread_detach(handle)
        } else {
            pthread_join(handle, nil)
        }
    }

    // MARK: On the loop's thread

    /// Waits for `fd` to be ready for `interest`; `handler` is called with what it is ready for. With no interest the
    /// descriptor is not watched at all: a socket the peer hung up on would otherwise be reported ready at every turn.
    public func register(_ fd: Int32, for interest: Interest, _ handler: @escaping (Readiness) -> Void) -> Registration {
        onThread("register")
        let id = nextID
        nextID += 1
        entries[id] = Entry(fd: fd, handler: handler, watched: !interest.isEmpty)
        if !interest.isEmpty { watch(fd, interest, id: id, EPOLL_CTL_ADD) }
        return Registration(id: id)
    }

    public func change(_ registration: Registration, to interest: Interest) {
        onThread("change")
        guard let entry = entries[registration.id] else { return }
        if interest.isEmpty {
            guard entry.watched else { return }
            watch(entry.fd, interest, id: registration.id, EPOLL_CTL_DEL)
        } else {
            watch(entry.fd, interest, id: registration.id, entry.watched ? EPOLL_CTL_MOD : EPOLL_CTL_ADD)
        }
        entries[registration.id]?.watched = !interest.isEmpty
    }

    /// Stops waiting on the descriptor (before it is closed or handed to another loop).
    public func deregister(_ registration: Registration) {
        onThread("deregister")
        guard let entry = entries.removeValue(forKey: registration.id), entry.watched else { return }
        watch(entry.fd, [], id: registration.id, EPOLL_CTL_DEL)
    }

    /// Runs `work` once `deadline` has passed, unless cancelled first.
    @discardableResult
    public func schedule(at deadline: ContinuousClock.Instant, _ work: @escaping () -> Void) -> Timer {
        onThread("schedule")
        let id = nextID
        nextID += 1
        timerWork[id] = work
        timers.insert(deadline, id)
        return Timer(id: id)
    }

    public func cancel(_ timer: Timer) {
        onThread("cancel")
        timerWork[timer.id] = nil
    }

    /// Runs `hook` at the end of every turn, before the loop waits again.
    public func eachTurn(_ hook: @escaping () -> Void) {
        onThread("eachTurn")
        turnHooks.append(hook)
    }

    /// Runs `hook` when the loop stops, after the last work handed to it.
    public func whenStopping(_ hook: @escaping () -> Void) {
        onThread("whenStopping")
        stopHooks.append(hook)
    }

    // MARK: -

    /// Traps unless the caller runs on the loop's thread, naming the loop and the call.
    private func onThread(_ call: StaticString) {
        precondition(inLoop, "EventLoop.\(call) was called off the thread of the loop \(name); hand it there with execute")
    }

    private func watch(_ fd: Int32, _ interest: Interest, id: UInt64, _ operation: Int32) {
        var event = Self.event(interest, id: id)
        _ = epoll_ctl(epoll, operation, fd, &event)
    }

    private static func event(_ interest: Interest, id: UInt64) -> epoll_event {
        var event = epoll_event()
        event.events = (interest.contains(.read) ? EPOLLIN.rawValue | EPOLLRDHUP.rawValue : 0)
            | (interest.contains(.write) ? EPOLLOUT.rawValue : 0)
        event.data.u64 = id
        return event
    }

    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        tc_name_thread(name)
        let clock = ContinuousClock()
        var ready = [epoll_event](repeating: epoll_event(), count: 256)
        while true {
            for job in mailbox.take() { job() }
            if stopping.load(ordering: .acquiring) { break }
            runDueTimers(clock.now)
            for hook in turnHooks { hook() }
            var wait: Int32 = -1
            if mailbox.hasNew {
                wait = 0
            } else if let next = nextDeadline() {
                let left = next - clock.now
                wait = left <= .zero ? 0 : Int32(clamping: left.wholeMilliseconds + 1)
            }
            let count = epoll_wait(epoll, &ready, Int32(ready.count), wait)
            guard count > 0 else { continue }
            for index in 0..<Int(count) {
                let event = ready[index]
                let id = event.data.u64
                if id == 0 { mailbox.clearWake() }  // the items are taken at the top of the next turn
                guard id != 0, let entry = entries[id] else { continue }
                let flags = event.events
                entry.handler(Readiness(
                    readable: flags & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0,
                    writable: flags & (EPOLLOUT.rawValue | EPOLLERR.rawValue) != 0))
            }
        }
        for job in mailbox.takeNew() { job() }
        for hook in stopHooks { hook() }
        for job in mailbox.close() { job() }
        entries = [:]
        timerWork = [:]
        turnHooks = []
        stopHooks = []
        threadID.store(0, ordering: .releasing)  // the thread's id may be another thread's once it has ended
    }

    private func nextDeadline() -> ContinuousClock.Instant? {
        while let (deadline, id) = timers.first {
            if timerWork[id] != nil { return deadline }
            timers.removeFirst()
        }
        return nil
    }

    private func runDueTimers(_ now: ContinuousClock.Instant) {
        while let (deadline, id) = timers.first, deadline <= now {
            timers.removeFirst()
            if let work = timerWork.removeValue(forKey: id) { work() }
        }
    }
}

extension EventLoop: SerialExecutor {
    /// Runs `job` on the loop's thread, in order with the work handed to it; once the loop has stopped, never (as
    /// work handed after `stop`).
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        execute { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// Traps off the loop's thread, naming the loop (`assumeIsolated` asks this).
    public func checkIsolated() {
        precondition(inLoop, "code isolated to the loop \(name) ran off its thread")
    }
}

/// A registered descriptor, its handler, and whether epoll watches it (not while it waits for nothing).
private struct Entry {
    let fd: Int32
    let handler: (EventLoop.Readiness) -> Void
    var watched: Bool
}

/// A binary min-heap of deadlines, each with the id of its work.
struct DeadlineHeap {
    private var items: [(ContinuousClock.Instant, UInt64)] = []

    var first: (ContinuousClock.Instant, UInt64)? { items.first }
    var count: Int { items.count }

    mutating func insert(_ deadline: ContinuousClock.Instant, _ id: UInt64) {
        items.append((deadline, id))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].0 < items[parent].0 else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func removeFirst() {
        guard !items.isEmpty else { return }
        items.swapAt(0, items.count - 1)
        items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count, items[left].0 < items[smallest].0 { smallest = left }
            if right < items.count, items[right].0 < items[smallest].0 { smallest = right }
            guard smallest != parent else { return }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
