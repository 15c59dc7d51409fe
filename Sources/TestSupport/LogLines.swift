import Synchronization

/// Lines a server logged.
public final class LogLines: Sendable {
    public let lines = Mutex<[String]>([])
    public init() {}
    public var all: [String] { lines.withLock { $0 } }
    public func append(_ line: String) { lines.withLock { $0.append(line) } }
    /// What a server's `log` is given: each line appended here.
    public var writer: @Sendable (String) -> Void { { [self] line in append(line) } }
}
