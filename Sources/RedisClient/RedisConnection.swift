import Sockets

/// Why a Redis exchange failed, in words (never with the password).
public struct RedisError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// A blocking connection to one Redis server for one thread: each exchange (commands out, their answers in) has a
/// deadline over the whole of it; a failed exchange closes the connection, and the next one connects again.
public final class RedisConnection {
    public let address: RedisAddress
    /// The most one exchange, connecting included, may take.
    public let deadline: Duration
    private var socket: Socket?
    private var reader = RESPReader()
    private var scratch = [UInt8](repeating: 0, count: Socket.receiveSize)

    public init(address: RedisAddress, deadline: Duration = .milliseconds(500)) {
        self.address = address
        self.deadline = deadline
    }

    deinit { socket?.close() }

    /// Sends one command and returns its answer (a server's `-ERR` is an answer, `.error`).
    public func call(_ command: [String]) throws(RedisError) -> RESPValue {
        try pipeline([command])[0]
    }

    /// Sends the commands together and returns their answers in order.
    public func pipeline(_ commands: [[String]]) throws(RedisError) -> [RESPValue] {
        let end = ContinuousClock.now + deadline
        do throws(RedisError) {
            let socket = try connected(until: end)
            try send(commands.flatMap(RESPCommand.encode), on: socket, until: end)
            var answers: [RESPValue] = []
            while answers.count < commands.count { answers.append(try receive(on: socket, until: end)) }
            return answers
        } catch {
            disconnect()
            throw error
        }
    }

    public func disconnect() {
        socket?.close()
        socket = nil
        reader = RESPReader()
    }

    private func connected(until end: ContinuousClock.Instant) throws(RedisError) -> Socket {
        if let socket { return socket }
        let socket: Socket
        do { socket = try Socket.connect(host: address.host, port: address.port, until: end) } catch {
            throw RedisError(description: "cannot connect to \(address): \(error.reason)")
        }
        socket.makeNonBlocking()
        self.socket = socket
        var setup: [[String]] = []
        if let password = address.password { setup.append(["AUTH", password]) }
        if address.database != 0 { setup.append(["SELECT", String(address.database)]) }
        if !setup.isEmpty {
            try send(setup.flatMap(RESPCommand.encode), on: socket, until: end)
            for _ in setup {
                if case .error(let message) = try receive(on: socket, until: end) {
                    // A server that does not know AUTH quotes its arguments ("with args beginning with: …").
                    throw RedisError(description: "\(address) refused the connection's setup: \(address.hidingPassword(in: message))")
                }
            }
        }
        return socket
    }

    private func send(_ bytes: [UInt8], on socket: Socket, until end: ContinuousClock.Instant) throws(RedisError) {
        var sent = 0
        while sent < bytes.count {
            switch socket.sendSome(bytes, from: sent) {
            case .sent(let count): sent += count
            case .full:
                guard socket.waitWritable(milliseconds: Self.milliseconds(until: end)) else {
                    throw RedisError(description: "\(address) took no command within \(deadline)")
                }
            case .failed: throw RedisError(description: "the connection to \(address) broke")
            }
        }
    }

    private func receive(on socket: Socket, until end: ContinuousClock.Instant) throws(RedisError) -> RESPValue {
        while true {
            do throws(RESPError) {
                if let value = try reader.next() { return value }
            } catch {
                throw RedisError(description: "\(address) sent what is not RESP: \(error)")
            }
            guard socket.waitReadable(milliseconds: Self.milliseconds(until: end)) else {
                throw RedisError(description: "\(address) did not answer within \(deadline)")
            }
            var received: [UInt8] = []
            switch socket.receive(appendingTo: &received, scratch: &scratch) {
            case .received: reader.append(received)
            case .nothingYet: continue
            case .closed: throw RedisError(description: "\(address) closed the connection")
            }
        }
    }

    private static func milliseconds(until end: ContinuousClock.Instant) -> Int32 {
        let left = end - .now
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
    }
}
