import Foundation

/// What the guide's app gets from UIKit and Xcode: where the token server is, the App ID, a clock to print
/// with, and a run loop that ends the program.
public enum Guide {
    /// The token server's base URL: `--server URL`, else `TOKEN_SERVER_URL`.
    public static let serverURL: String = option("--server", env: "TOKEN_SERVER_URL") ?? "http://127.0.0.1:8082"
    /// The App ID: `--app-id ID`, else `APP_ID`.
    public static let appId: String = option("--app-id", env: "APP_ID") ?? "Your App ID"
    /// When the view disappears (the app leaves): `--seconds N`, else 15.
    public static let seconds: Double = option("--seconds", env: nil).flatMap(Double.init) ?? 15

    /// When the program started: read once by `run`, before any line is printed.
    nonisolated(unsafe) private static var start = Date()

    /// Held while a call runs and while a line is printed; recursive, so a callback delivered inside a call on the
    /// same thread would still print (and say it came before the call returned).
    private static let lock = NSRecursiveLock()
    nonisolated(unsafe) private static var returnedCalls: Set<String> = []

    /// One line of output: seconds since start, then what happened. The test compares the text after the time.
    /// With `after`, a callback that comes before that call has returned says so.
    public static func say(_ text: String, after call: String? = nil) {
        lock.lock()
        defer { lock.unlock() }
        let early = call.map { returnedCalls.contains($0) ? "" : " before \($0) returned" } ?? ""
        let line = String(format: "@ %6.2f ", Date().timeIntervalSince(start)) + text + early + "\n"
        FileHandle.standardOutput.write(line.data(using: .utf8)!)
    }

    /// Makes an engine call the way the guide does (often from URLSession's thread) and prints
    /// `= <call> returned <result>` before any callback can print: the callbacks, on the main thread, wait for the
    /// lock this holds until the call has returned and its line is out. An engine that delivered a callback inside
    /// the call and waited for it would hang here, and the test would time out.
    @discardableResult
    public static func call(_ name: String, detail: String = "", _ body: () -> Int32) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        let result = body()
        returnedCalls.insert(name)
        say("= \(name) returned \(result)\(detail)")
        return result
    }

    /// Holds the output lock across several calls (each printed by `call`), so that no callback prints between them.
    public static func batch(_ body: () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        body()
    }

    /// Runs the main queue: `appear` now, `disappear` after `seconds`, `destroy` one second later, then exits.
    public static func run(appear: @escaping () -> Void, disappear: @escaping () -> Void,
                           destroy: @escaping () -> Void) -> Never {
        setvbuf(stdout, nil, _IOLBF, 0)
        start = Date()
        DispatchQueue.main.async(execute: appear)
        DispatchQueue.main.asyncAfter(deadline: .now() + seconds, execute: disappear)
        DispatchQueue.main.asyncAfter(deadline: .now() + seconds + 1) {
            destroy()
            DispatchQueue.main.asyncAfter(deadline: .now() + 0.5) {
                say("exit")
                exit(0)
            }
        }
        dispatchMain()
    }

    private static func option(_ name: String, env: String?) -> String? {
        let arguments = CommandLine.arguments
        if let index = arguments.firstIndex(of: name), index + 1 < arguments.count { return arguments[index + 1] }
        if let env, let value = ProcessInfo.processInfo.environment[env], !value.isEmpty { return value }
        return nil
    }
}

/// Stands in for UIView: the guide's views are only handed to canvases, so a plain object is enough.
public final class PlainView {
    public private(set) var subviews: [PlainView] = []
    public init() {}
    public func addSubview(_ view: PlainView) { subviews.append(view) }
}
