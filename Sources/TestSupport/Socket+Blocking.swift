import Sockets
#if canImport(Glibc)
import Glibc
#endif

// Tests' clients wait on their sockets; tokencall's own connects and waits are a loop's (`Dial`, `LoopConnection`).
extension Socket {
    /// Connects to `host:port`, trying each address it names until one answers, all before `deadline`, blocking the
    /// caller; the socket is non-blocking, with TCP_NODELAY.
    public static func connect(host: String, port: UInt16, until deadline: ContinuousClock.Instant) throws(SocketError) -> Socket {
        var failure = SocketError("cannot connect to \(host):\(port)", reason: "no address")
        for address in try addresses(host: host, port: port) {
            let candidate: Socket
            do { candidate = try startConnecting(to: address) } catch {
                failure = SocketError("cannot connect to \(host):\(port)", reason: error.reason)
                continue
            }
            let left = deadline - .now
            guard left > .zero, candidate.waitWritable(milliseconds: Int32(clamping: left.wholeMilliseconds + 1)) else {
                candidate.close()
                throw SocketError("cannot connect to \(host):\(port)", reason: "no answer in time")
            }
            guard let refused = candidate.connectFailure() else { return candidate }
            failure = SocketError("cannot connect to \(host):\(port)", reason: refused.reason)
            candidate.close()
        }
        throw failure
    }

    /// Waits up to `milliseconds` for something to read (or for the peer to close).
    public func waitReadable(milliseconds: Int32) -> Bool { wait(for: POLLIN, milliseconds: milliseconds) }

    /// Waits up to `milliseconds` for room to send (or for the peer to close).
    public func waitWritable(milliseconds: Int32) -> Bool { wait(for: POLLOUT, milliseconds: milliseconds) }

    private func wait(for events: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(events), revents: 0)
        while true {
            let ready = poll(&entry, 1, max(0, milliseconds))
            if ready < 0, errno == EINTR { continue }
            return ready > 0
        }
    }
}
