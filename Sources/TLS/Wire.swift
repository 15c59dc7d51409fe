import Sockets
#if canImport(Glibc)
import Glibc
#endif

/// One non-blocking connection's bytes both ways, through a `TLSSession` when it has one: what the socket receives
/// comes out as plaintext, plaintext queued goes out as ciphertext. It never waits; its owner's loop says when the
/// socket is ready. Belongs to its loop: not `Sendable`, it changes loops only by `sending` (`LoopBound(handing:to:)`).
public final class Wire {
    public let socket: Socket
    private let tls: TLSSession?
    private var output: [UInt8] = []
    private var sent = 0
    /// What the last receive brought over TLS, kept for its capacity until OpenSSL has taken it.
    private var ciphertext: [UInt8] = []
    private var secured: Bool

    /// What a receive brought.
    public enum Arrival: Equatable {
        /// Nothing yet (or only handshake bytes).
        case nothing
        /// Plaintext from the peer.
        case data([UInt8])
        /// The TLS handshake has just finished, with any plaintext that came after it.
        case secured([UInt8])
        /// The peer closed the connection (or it broke); plaintext that came with the end first.
        case ended([UInt8])
        /// The peer's bytes are not TLS, or its handshake failed.
        case refused(TLSFailure)
    }

    public enum Flushed: Equatable {
        /// Everything queued is out.
        case done
        /// Some is left; `progressed` when the socket took any of it.
        case partial(progressed: Bool)
        /// The peer is gone.
        case failed
    }

    /// A wire over `socket`: plain without `tls`; with a client's session, `start` sends its hello.
    public init(_ socket: Socket, tls: TLSSession? = nil) {
        self.socket = socket
        self.tls = tls
        secured = tls == nil
    }

    /// Whether its bytes go through TLS.
    public var isTLS: Bool { tls != nil }
    /// Whether the TLS handshake is still under way.
    public var isHandshaking: Bool { !secured }
    /// Ciphertext (or plaintext) bytes waiting for the socket.
    public var queued: Int { output.count - sent }

    /// A client's session begins its handshake: the hello is queued.
    public func start() throws(TLSFailure) {
        guard let tls, !secured else { return }
        secured = try tls.handshake()
        tls.takeOutgoing(appendingTo: &output)
    }

    /// Reads what the socket has (at most one receive, through `scratch`) and turns it into plaintext.
    public func receive(scratch: inout [UInt8]) -> Arrival {
        guard let tls else {
            var arrived: [UInt8] = []
            switch socket.receive(appendingTo: &arrived, scratch: &scratch) {
            case .received: return .data(arrived)
            case .nothingYet: return .nothing
            case .closed: return .ended([])
            }
        }
        ciphertext.removeAll(keepingCapacity: true)
        let received = socket.receive(appendingTo: &ciphertext, scratch: &scratch)
        switch received {
        case .nothingYet: return .nothing
        case .received: tls.received(ciphertext[...])
        case .closed: tls.receivedEnd()
        }
        do {
            var finished = false
            if !secured {
                secured = try tls.handshake()
                tls.takeOutgoing(appendingTo: &output)
                if !secured { return received == .closed ? .refused(tls.peer.closed(during: "the handshake")) : .nothing }
                finished = true
            }
            var plaintext: [UInt8] = []
            let ended = try tls.read(into: &plaintext)
            tls.takeOutgoing(appendingTo: &output)
            if ended || received == .closed { return .ended(plaintext) }
            return finished ? .secured(plaintext) : (plaintext.isEmpty ? .nothing : .data(plaintext))
        } catch {
            tls.takeOutgoing(appendingTo: &output)  // an alert, for the peer to learn why
            return .refused(error)
        }
    }

    /// Queues `plaintext` for the peer (encrypted through TLS); send it with `flush`.
    public func queue(_ plaintext: [UInt8]) throws(TLSFailure) {
        guard !plaintext.isEmpty else { return }
        guard let tls else {
            if sent > 0, sent == output.count {
                output.removeAll(keepingCapacity: true)
                sent = 0
            }
            output += plaintext
            return
        }
        try tls.write(plaintext)
        tls.takeOutgoing(appendingTo: &output)
    }

    /// Sends what the socket takes now.
    public func flush() -> Flushed {
        guard queued > 0 else { return .done }
        switch socket.sendSome(output, from: sent) {
        case .sent(let count):
            sent += count
            if sent == output.count {
                output.removeAll(keepingCapacity: true)
                sent = 0
                return .done
            }
            if sent > 64 * 1024, sent * 2 > output.count {
                output.removeFirst(sent)
                sent = 0
            }
            return .partial(progressed: true)
        case .full: return .partial(progressed: false)
        case .failed: return .failed
        }
    }

    /// No more bytes go out (a TLS close_notify first, when it can be sent now); the peer reads to the end.
    public func shutdownWrite() {
        if let tls, secured {
            tls.close()
            tls.takeOutgoing(appendingTo: &output)
            _ = flush()
        }
        shutdown(socket.fd, Int32(SHUT_WR))
    }
}
