/// One queued callback: an event for a connection (nil: the engine's own), and what runs right after it (a
/// `leaveChannel` block, a plain block as in the SDK, run on the main actor like every callback).
struct Callback {
    let channel: Channel?
    let event: AgoraRtcEvent
    let then: (() -> Void)?
}

/// The callbacks waiting for the main actor, oldest first: appending and taking the first are O(1) (amortized), so
/// a long queue costs no more per callback than a short one.
struct CallbackQueue {
    private var slots: [Callback?] = []
    private var head = 0

    var count: Int { slots.count - head }
    var isEmpty: Bool { head == slots.count }

    mutating func append(_ callback: Callback) { slots.append(callback) }

    mutating func popFirst() -> Callback? {
        guard head < slots.count else { return nil }
        let first = slots[head]
        slots[head] = nil
        head += 1
        if head == slots.count {
            slots.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= slots.count {
            slots.removeFirst(head)
            head = 0
        }
        return first
    }
}

extension AgoraRtcEngineKit {
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Runs an app's call under the lock; the callbacks it queued are delivered on the main actor once it has
    /// returned.
    func call<T>(_ work: () -> T) -> T {
        let result = locked(work)
        scheduleDelivery()
        return result
    }

    /// Runs a timer's work under the lock and delivers what it queued at once: no caller waits for it.
    @MainActor
    func fire(_ work: () -> Void) {
        locked(work)
        deliver()
    }

    /// `fire` for a timer of one connection: the work runs only while the engine still has it.
    @MainActor
    func fire(on id: Int, _ work: (Channel) -> Void) {
        fire { channel(id).map(work) }
    }

    func emit(_ event: AgoraRtcEvent, on channel: Channel?, then: (() -> Void)? = nil) {
        queue.append(Callback(channel: channel, event: event, then: then))
    }

    /// The most callbacks one delivery runs before it lets the main actor do what else waits (a signal, a key, a
    /// timer) and goes on after it.
    static let deliveryBatch = 256

    /// Delivery is a timer due now: on a real clock it runs on the main actor as soon as it is free; on a
    /// manual clock it runs when the test next advances the clock, at the same instant. A delivery running now
    /// takes the new callbacks too.
    private func scheduleDelivery() {
        let needed = locked {
            guard !queue.isEmpty, !deliveryScheduled, !delivering else { return false }
            deliveryScheduled = true
            return true
        }
        guard needed else { return }
        timers.schedule(after: .zero) { [weak self] in self?.deliver() }
    }

    /// Delivers queued callbacks in order, outside the lock; a callback that calls back into the engine queues
    /// more, which this same loop delivers after it returns, so no callback runs inside another. After
    /// `deliveryBatch` of them it yields the main actor and goes on in a later turn (`TimerQueue.afterYield`).
    @MainActor
    func deliver() {
        let starts = locked {
            deliveryScheduled = false
            guard !delivering else { return false }
            delivering = true
            return true
        }
        guard starts else { return }
        for _ in 0..<Self.deliveryBatch {
            guard let (callback, observer, delegate) = nextCallback() else { return }
            if callback.channel?.isMain != false { observer?(callback.event) }
            if case .didJoinChannel(let name, let uid, let elapsed) = callback.event,
               let joinSuccess = locked({ callback.channel?.joinSuccess }) {
                joinSuccess(name, uid, elapsed)
            } else if let delegate {
                callback.event.deliver(to: delegate, from: self)
            }
            callback.then?()
        }
        let more = locked {
            delivering = false
            guard !queue.isEmpty, !deliveryScheduled else { return false }
            deliveryScheduled = true
            return true
        }
        if more { timers.afterYield { [weak self] in self?.deliver() } }
    }

    private func nextCallback() -> (Callback, (@MainActor (AgoraRtcEvent) -> Void)?, (any AgoraRtcEngineDelegate)?)? {
        locked {
            guard let callback = queue.popFirst() else {
                delivering = false
                return nil
            }
            let delegate = callback.channel?.isMain == false ? callback.channel?.exDelegate : delegateReference
            return (callback, observerClosure, delegate)
        }
    }
}
