import Foundation
import HTTP1
import Synchronization

/// A request's outcome and the caller waiting for it: the first outcome wins and resumes the caller exactly once,
/// whichever comes first, the caller or the outcome; later outcomes (a cancel acted on late) are dropped.
final class FirstOutcome: Sendable {
    typealias Answer = (reply: HTTPReply, url: URL)

    private struct State {
        var waiting: CheckedContinuation<Answer, any Error>?
        var outcome: Result<Answer, any Error>?
    }

    private let state = Mutex(State())

    /// Whether an outcome has been had.
    var isKnown: Bool { state.withLock { $0.outcome != nil } }

    /// Waits for the outcome; false if it is already known (the request was cancelled before it started).
    func start(_ continuation: CheckedContinuation<Answer, any Error>) -> Bool {
        let outcome = state.withLock { state -> Result<Answer, any Error>? in
            if state.outcome == nil { state.waiting = continuation }
            return state.outcome
        }
        guard let outcome else { return true }
        continuation.resume(with: outcome)
        return false
    }

    /// Returns whether this outcome was the first.
    @discardableResult
    func finish(_ outcome: Result<Answer, any Error>) -> Bool {
        let (first, waiting) = state.withLock { state -> (Bool, CheckedContinuation<Answer, any Error>?) in
            guard state.outcome == nil else { return (false, nil) }
            state.outcome = outcome
            defer { state.waiting = nil }
            return (true, state.waiting)
        }
        waiting?.resume(with: outcome)
        return first
    }
}
