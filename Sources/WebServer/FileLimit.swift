#if canImport(Glibc)
import Glibc
#endif

/// The process's limit on open files (RLIMIT_NOFILE), which bounds the connections a server can hold: past it
/// `accept` fails, and a listener left with clients waiting keeps waking the accept loop for nothing.
enum FileLimit {
    /// Descriptors kept for everything but connections: the standard streams, the listener, the workers' pipes,
    /// and whatever else the process has open (the app's terminal and its own HTTP client).
    static let reserved = 64

    /// Raises the soft limit as far as the hard limit allows towards what `connections` need; returns the soft
    /// limit in force after.
    static func raiseSoftLimit(toFit connections: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return Int.max }
        let (wanted, overflow) = connections.addingReportingOverflow(reserved)
        let needed = rlim_t(overflow ? Int.max : max(wanted, 0))
        if limit.rlim_cur < needed {
            var raised = limit
            raised.rlim_cur = min(needed, limit.rlim_max)
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// The connections to serve at once when `requested` are asked for and the process may have `openFiles` open.
    static func connections(_ requested: Int, openFiles: Int) -> Int {
        max(1, min(requested, openFiles - reserved))
    }
}
