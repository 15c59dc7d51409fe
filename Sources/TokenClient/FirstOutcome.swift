import Synchronization

/// A request's outcome and the caller waiting for it: the first outcome wins and resumes the caller exactly once,
/// whichever comes first, the caller or the outcome; later outcomes (a cancel acted on late) are dropped.
final class FirstOutcome<Value: Sendable>: Sendable {
    private struct State {
        var waiting: CheckedContinuation<Value, any Error>?
        var outcome: Result<Value, any Error>?
    }

    private let state = Mutex(State())

    /// Whether an outcome has been had.
    var isKnown: Bool { state.withLock { $0.outcome != nil } }

    /// Waits for the outcome; false if it is already known (the request was cancelled before it started).
    func start(_ continuation: CheckedContinuation<Value, any Error>) -> Bool {
        let outcome = state.withLock { state -> Result<Value, any Error>? in
            if state.outcome == nil { state.waiting = continuation }
            return state.outcome
        }
        guard let outcome else { return true }
        continuation.resume(with: outcome)
        return false
    }

    /// Returns whether this outcome was the first.
    @discardableResult
    func finish(_ outcome: Result<Value, any Error>) -> Bool {
        let (first, waiting) = state.withLock { state -> (Bool, CheckedContinuation<Value, any Error>?) in
            guard state.outcome == nil else { return (false, nil) }
            state.outcome = outcome
            defer { state.waiting = nil }
            return (true, state.waiting)
        }
        waiting?.resume(with: outcome)
        return first
    }
}
