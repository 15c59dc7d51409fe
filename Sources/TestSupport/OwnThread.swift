import Foundation

/// Runs a test's blocking work (processes, browsers, sleeps that last minutes) on a thread of its own, so it does not
/// hold one of the few threads every async test shares: on two cores two such tests would stall all the others.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}
