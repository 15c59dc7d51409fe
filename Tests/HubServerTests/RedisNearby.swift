import Foundation
import Sockets
import Synchronization
import TestSupport

/// A `redis-server` on a free 127.0.0.1 port, started for a test and killed when it goes (Debian's, `make deps`).
final class RedisServerProcess {
    static let path = "/usr/bin/redis-server"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: path) }

    let port: UInt16
    private let process = Process()

    /// On `port`, or a free one.
    init(port: UInt16? = nil) throws {
        guard let port = port ?? Loopback.freePort() else { throw NearbyFailure(description: "no free port for redis-server") }
        self.port = port
        process.executableURL = URL(fileURLWithPath: Self.path)
        process.arguments = ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try Self.waitForPort(port)
    }

    /// SIGSTOP: it holds its connections and answers nothing, as a Redis that hangs.
    func pause() { kill(process.processIdentifier, SIGSTOP) }

    /// SIGKILL: a process started from a test's thread inherits its blocked SIGTERM.
    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Waits (up to 10 s) until something accepts connections on the port.
    static func waitForPort(_ port: UInt16) throws {
        guard Loopback.waitForListener(on: port) else { throw NearbyFailure(description: "nothing listens on 127.0.0.1:\(port) after 10 s") }
    }
}

struct NearbyFailure: Error, CustomStringConvertible {
    let description: String
}

/// A TCP proxy on 127.0.0.1 that holds every byte `delay` each way before passing it on: a server that far away.
final class DelayingProxy: Sendable {
    let port: UInt16
    private let listener: Socket
    private let threads = OwnedThreads()
    private let open = Mutex<[Socket]>([])
    private let stopped = Atomic(false)

    init(to target: UInt16, delay: Duration) throws {
        (listener, _, port) = try Socket.listen(host: "127.0.0.1", port: 0)
        threads.start { [self] in
            while !stopped.load(ordering: .acquiring) {
                guard listener.waitReadable(milliseconds: 50), case .client(let client, _) = listener.accept() else { continue }
                guard let server = try? Socket.connect(host: "127.0.0.1", port: target, until: .now + .seconds(2)) else {
                    client.close()
                    continue
                }
                open.withLock { $0 += [client, server] }
                threads.start { [self] in pump(from: client, to: server, delay: delay) }
                threads.start { [self] in pump(from: server, to: client, delay: delay) }
            }
        }
    }

    /// Passes what `source` sends to `sink`, each piece `delay` after it arrived, until either end closes.
    private func pump(from source: Socket, to sink: Socket, delay: Duration) {
        var held: [(due: ContinuousClock.Instant, bytes: [UInt8])] = []
        var scratch = [UInt8](repeating: 0, count: Socket.receiveSize)
        var sourceOpen = true
        while !stopped.load(ordering: .acquiring), sourceOpen || !held.isEmpty {
            let wait = held.first.map { max(.zero, $0.due - .now) } ?? .milliseconds(50)
            let milliseconds = Int32(min(50, wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000))
            if sourceOpen, source.waitReadable(milliseconds: milliseconds) {
                var bytes: [UInt8] = []
                switch source.receive(appendingTo: &bytes, scratch: &scratch) {
                case .received: held.append((.now + delay, bytes))
                case .nothingYet: break
                case .closed: sourceOpen = false
                }
            } else if !sourceOpen {
                Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
            }
            while let first = held.first, first.due <= .now {
                held.removeFirst()
                guard sink.send(first.bytes) else { return sink.shutdownBoth() }
            }
        }
        sink.shutdownBoth()
    }

    /// Closes every connection and waits for the proxy's threads.
    func stop() {
        stopped.store(true, ordering: .releasing)
        threads.joinAll()
        for socket in open.withLock({ $0 }) { socket.close() }
        listener.close()
    }
}
