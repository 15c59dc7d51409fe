import Dispatch
import Foundation

/// The signals that ask tokencall to stop — leave the call, stop serving — caught here and nowhere else. (Signals that
/// end the process while the call screen holds the terminal are CNcurses's: it gives the terminal back first.)
enum StopSignals {
    static let numbers = [SIGINT, SIGTERM, SIGHUP]

    /// Runs `stop` on the main actor at each of them from now on, until the returned sources are cancelled.
    @MainActor
    static func onMain(_ stop: @escaping @MainActor () -> Void) -> [any DispatchSourceSignal] {
        catching(on: .main) { MainActor.assumeIsolated { stop() } }
    }

    /// Catches them from now on; the function returned blocks until one has come.
    static func waiter() -> () -> Void {
        let stop = DispatchSemaphore(value: 0)
        let sources = catching(on: .global()) { stop.signal() }
        return {
            stop.wait()
            sources.forEach { $0.cancel() }
        }
    }

    private static func catching(on queue: DispatchQueue, _ handler: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
        numbers.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
    }
}
