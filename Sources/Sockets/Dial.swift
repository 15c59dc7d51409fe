import CLinux
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A connect from an event loop that never blocks it: a host name is looked up on a thread of its own (dials of one
/// name at once share the lookup), each address it has is tried in turn with a non-blocking connect registered on the
/// loop, and the whole dial ends by its deadline. Made and used on the loop's thread; `completion` runs there, once,
/// unless the dial is cancelled first.
public final class Dial {
    private enum Phase {
        /// Looking the name up, or between two addresses: no socket held.
        case waiting
        case connecting(Socket, EventLoop.Registration, rest: ArraySlice<Socket.Address>)
        case over
    }

    private let loop: EventLoop
    private let target: String
    private var phase = Phase.waiting
    private var timer: EventLoop.Timer?
    private var completion: ((Result<Socket, SocketError>) -> Void)?

    private init(loop: EventLoop, target: String, completion: @escaping (Result<Socket, SocketError>) -> Void) {
        self.loop = loop
        self.target = target
        self.completion = completion
    }

    /// Starts connecting to `host:port` (a name, or an address written as one), giving up at `deadline`; the socket
    /// `completion` gets is non-blocking, with TCP_NODELAY.
    public static func start(host: String, port: UInt16, on loop: EventLoop, until deadline: ContinuousClock.Instant,
                             completion: @escaping (Result<Socket, SocketError>) -> Void) -> Dial {
        let dial = Dial(loop: loop, target: "\(host):\(port)", completion: completion)
        dial.timer = loop.schedule(at: deadline) { [dial] in
            dial.timer = nil
            dial.finish(.failure(SocketError("cannot connect to \(dial.target)", reason: "no answer in time")))
        }
        if let literal = Socket.literalAddress(host: host, port: port) {
            dial.tryConnecting([literal][...], failure: nil)
        } else {
            let bound = LoopBound(dial, on: loop)
            NameLookups.shared.find(host: host, port: port) { found in
                loop.execute { bound.value.lookedUp(found) }
            }
        }
        return dial
    }

    /// Gives up: the socket is closed and `completion` is never called.
    public func cancel() {
        completion = nil
        finish(.failure(.abandoned))
    }

    private func lookedUp(_ found: Result<[Socket.Address], SocketError>) {
        guard case .waiting = phase else { return }
        switch found {
        case .success(let addresses): tryConnecting(addresses[...], failure: nil)
        case .failure(let error): finish(.failure(error))
        }
    }

    /// Starts a connect to the first of `addresses` that takes one; the rest are tried if it fails.
    private func tryConnecting(_ addresses: ArraySlice<Socket.Address>, failure: SocketError?) {
        var rest = addresses
        var failure = failure
        while let next = rest.popFirst() {
            do throws(SocketError) {
                let socket = try Socket.startConnecting(to: next)
                let registration = loop.register(socket.fd, for: .write) { [self] _ in connectEnded() }
                phase = .connecting(socket, registration, rest: rest)
                return
            } catch {
                failure = error
            }
        }
        finish(.failure(SocketError("cannot connect to \(target)", reason: failure?.reason ?? "no address")))
    }

    private func connectEnded() {
        guard case .connecting(let socket, let registration, let rest) = phase else { return }
        loop.deregister(registration)
        phase = .waiting
        if let failure = socket.connectFailure() {
            socket.close()
            return tryConnecting(rest, failure: failure)
        }
        finish(.success(socket))
    }

    private func finish(_ result: Result<Socket, SocketError>) {
        switch phase {
        case .over: return
        case .connecting(let socket, let registration, _):
            loop.deregister(registration)
            socket.close()
        case .waiting: break
        }
        phase = .over
        if let timer { loop.cancel(timer) }
        timer = nil
        let completion = self.completion
        self.completion = nil
        guard let completion else {
            if case .success(let socket) = result { socket.close() }
            return
        }
        completion(result)
    }
}

/// Name lookups under way, each on a thread of its own; a lookup asked for while the same one runs waits for it.
final class NameLookups: Sendable {
    typealias Waiter = @Sendable (Result<[Socket.Address], SocketError>) -> Void
    static let shared = NameLookups()

    private let running = Mutex<[String: [Waiter]]>([:])

    func find(host: String, port: UInt16, then waiter: @escaping Waiter) {
        let key = "\(host) \(port)"
        let starts = running.withLock { running -> Bool in
            if running[key] != nil {
                running[key]!.append(waiter)
                return false
            }
            running[key] = [waiter]
            return true
        }
        guard starts else { return }
        let started = DetachedThread.start(name: "name-lookup") { [self] in
            let found = Result { () throws(SocketError) in try Socket.addresses(host: host, port: port) }
            for waiter in running.withLock({ $0.removeValue(forKey: key) ?? [] }) { waiter(found) }
        }
        if !started {
            let failed = SocketError("cannot find host \"\(host)\"", reason: "no thread could be started to look it up")
            for waiter in running.withLock({ $0.removeValue(forKey: key) ?? [] }) { waiter(.failure(failed)) }
        }
    }
}

/// A thread that runs one piece of work and ends, joined by nobody.
enum DetachedThread {
    /// Starts it; false when the system has no thread to give.
    static func start(name: String, _ work: @escaping @Sendable () -> Void) -> Bool {
        final class Box: Sendable {
            let name: String, work: @Sendable () -> Void
            init(_ name: String, _ work: @escaping @Sendable () -> Void) { (self.name, self.work) = (name, work) }
        }
        var handle = pthread_t()
        let context = Unmanaged.passRetained(Box(name, work)).toOpaque()
        let started = pthread_create(&handle, nil, { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            tc_name_thread(box.name)
            box.work()
            return nil
        }, context)
        guard started == 0 else {
            Unmanaged<Box>.fromOpaque(context).release()
            return false
        }
        pthread_detach(handle)
        return true
    }
}
