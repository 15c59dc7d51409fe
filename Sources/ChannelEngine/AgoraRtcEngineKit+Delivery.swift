/// One queued callback: an event for a connection (nil: the engine's own), and what runs right after it (a
/// `leaveChannel` block, a plain block as in the SDK, run on the main actor like every callback).
struct Callback {
    let channel: Channel?
    let event: AgoraRtcEvent
    let then: (() -> Void)?
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

    func emit(_ event: AgoraRtcEvent, on channel: Channel?, then: (() -> Void)? = nil) {
        queue.append(Callback(channel: channel, event: event, then: then))
    }

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
    /// more, which this same loop delivers after it returns, so no callback runs inside another.
    @MainActor
    func deliver() {
        let starts = locked {
            deliveryScheduled = false
            guard !delivering else { return false }
            delivering = true
            return true
        }
        guard starts else { return }
        while let (callback, observer, delegate) = nextCallback() {
            if callback.channel?.isMain != false { observer?(callback.event) }
            if case .didJoinChannel(let name, let uid, let elapsed) = callback.event,
               let joinSuccess = locked({ callback.channel?.joinSuccess }) {
                joinSuccess(name, uid, elapsed)
            } else if let delegate {
                callback.event.deliver(to: delegate, from: self)
            }
            callback.then?()
        }
    }

    private func nextCallback() -> (Callback, (@MainActor (AgoraRtcEvent) -> Void)?, (any AgoraRtcEngineDelegate)?)? {
        locked {
            guard !queue.isEmpty else {
                delivering = false
                return nil
            }
            let callback = queue.removeFirst()
            let delegate = callback.channel?.isMain == false ? callback.channel?.exDelegate : delegateReference
            return (callback, observerClosure, delegate)
        }
    }
}
